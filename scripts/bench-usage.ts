// Preloaded (node --import) into every process that bench-cli measures: at exit it writes the
// process's own CPU time and peak RSS to FT_USAGE_FILE, which a parent cannot read per child.
import { writeFileSync } from "node:fs";

const file = process.env.FT_USAGE_FILE;
if (file) {
  process.on("exit", () => {
    const u = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssMb: u.maxRSS / 1024 }));
  });
}
