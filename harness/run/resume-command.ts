/** The command that resumes the run in `dir`, for people to paste: a folder with blanks, quotes or `$` is quoted. */
export function resumeCommand(dir: string): string {
  return `npx --no-install fieldtest run --resume ${/[\s"'$]/.test(dir) ? JSON.stringify(dir) : dir}`;
}
