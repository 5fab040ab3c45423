/**
 * Core's messages speak to a GitHub Actions step: inputs (`profile-name`, `api-url`), "the runner", "the job".
 * The CLI passes its own names where core takes them (InputError names, the request engine's inputNames);
 * these rewrites put the rest, words core does not take as parameters yet, in the CLI's terms. Applied to
 * the lines of the `builder` commands (CommandContext's coreWording), which run core's builder lifecycle.
 */
const REWRITES: readonly [RegExp, string][] = [
  // BuildxUnavailableError's fixes.
  [
    /run the job on a runner with the Docker CLI and its buildx plugin \(GitHub-hosted Ubuntu runners have both\)/g,
    'install the Docker CLI and its buildx plugin on this machine (https://docs.docker.com/go/buildx/)'
  ],
  [/, or run the job on a runner that has it \(GitHub-hosted Ubuntu runners do\)/g, ''],
  [/, then run the job again/g, ', then try again'],
  [/\bon the runner\b/g, 'on this machine'],
  [/\bthis runner\b/g, 'this machine'],
  [/\bthe runner's\b/g, "this machine's"],
  [/\bthe step was cancelled\b/g, 'the command was cancelled'],
  // Action inputs named in hints (the assignment's 404): the CLI's flags. Not inside a word, path or host name.
  [/(?<![\w./:-])profile-name(?![\w.-])/g, '--profile'],
  [/(?<![\w./:-])api-url(?![\w.-])/g, '--api-url'],
  [/(?<![\w./:-])api-key(?![\w.-])/g, '--api-key']
];

/** `text` with core's action wording replaced by the CLI's. */
export function inCliWords(text: string): string {
  let out = text;
  for (const [from, to] of REWRITES) out = out.replace(from, to);
  return out;
}
