import {expect, test} from '@jest/globals';
import {inCliWords} from '../src/cli-wording.js';

test.each<[number, string, string]>([
  [
    1,
    'docker buildx is not available: the Docker CLI ("docker") is not on PATH (spawn docker ENOENT): run the job on a runner with the Docker CLI and its buildx plugin (GitHub-hosted Ubuntu runners have both)',
    'docker buildx is not available: the Docker CLI ("docker") is not on PATH (spawn docker ENOENT): install the Docker CLI and its buildx plugin on this machine (https://docs.docker.com/go/buildx/)'
  ],
  [
    2,
    'install the buildx plugin on the runner (https://docs.docker.com/go/buildx/), or run the job on a runner that has it (GitHub-hosted Ubuntu runners do)',
    'install the buildx plugin on this machine (https://docs.docker.com/go/buildx/)'
  ],
  [
    3,
    'check that docker answers on the runner (a hung plugin or a slow disk), then run the job again',
    'check that docker answers on this machine (a hung plugin or a slow disk), then try again'
  ],
  [
    4,
    'unknown builder profile "x": check profile-name against the builder profiles in the web UI; or api-url (https://h) is not',
    'unknown builder profile "x": check --profile against the builder profiles in the web UI; or --api-url (https://h) is not'
  ],
  [
    8,
    "No build is started while a node is down: check that this runner reaches the node's endpoint (firewall, proxy) and that its BuildKit answers, then run the job again",
    "No build is started while a node is down: check that this machine reaches the node's endpoint (firewall, proxy) and that its BuildKit answers, then try again"
  ],
  [
    5,
    '`docker buildx version` was stopped: the step was cancelled',
    '`docker buildx version` was stopped: the command was cancelled'
  ],
  // Flags, hosts, paths and other words that merely contain the input names are left alone.
  [
    6,
    'set --api-url; https://api-url.example/api-key/x; my-profile-name; api-url.txt',
    'set --api-url; https://api-url.example/api-key/x; my-profile-name; api-url.txt'
  ],
  [7, 'runners list: 2 runners', 'runners list: 2 runners']
])('%d: %s', (_n, core, cli) => {
  expect(inCliWords(core)).toBe(cli);
});
