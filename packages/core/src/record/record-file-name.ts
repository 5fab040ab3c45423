/**
 * The record file's (and artifact's) name, as docker names it: `<owner>~<repo>~<REF6>[+<N-1>].dockerbuild`,
 * REF6 the first 6 characters of the first ref, upper case, and `+<N-1>` when the file holds N > 1 refs.
 * Without a repository (off a workflow run) the owner and repo parts are left out.
 */
export function recordFileName(repository: string | undefined, refs: string[]): string {
  const first = (refs[0] ?? '').slice(0, 6).toUpperCase();
  const more = refs.length > 1 ? `+${refs.length - 1}` : '';
  const prefix = repository ? `${repository.replace('/', '~')}~` : '';
  return `${prefix}${first}${more}.dockerbuild`;
}
