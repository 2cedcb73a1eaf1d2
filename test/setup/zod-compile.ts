// The CLI compiles every zod schema on its first parse (harness/cli/main.ts); the tests run the
// same parsers, so they load the compiler before any schema module too.
import "zod/compile";
