/** One thing wrong with the corpus, printed as `file: path: message` (the InputError layout). */
export interface Problem {
  file: string;
  path: string;
  message: string;
}

export function formatProblem(p: Problem): string {
  return `${p.file}: ${p.path}: ${p.message}`;
}
