import {describe, expect, test} from '@jest/globals';
import {buildInputsYaml, readSummaryInputs, type SummaryInputsSpec} from '../../src/report/build-inputs.js';

const SPEC: SummaryInputsSpec = {
  names: ['context', 'push', 'load', 'tags', 'build-args', 'secrets', 'api-key', 'github-token', 'file'],
  lists: {tags: {}, 'build-args': {ignoreComma: true}},
  hidden: ['api-key', 'github-token'],
  secretKeys: ['secrets']
};

const io = (inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}) => ({
  getInput: (name: string) => (inputs[name] ?? '').trim(),
  env
});

describe('readSummaryInputs', () => {
  test("docker's selection: empty and false left out, lists by item, secrets by key, the keys never", () => {
    const inputs = readSummaryInputs(
      io({
        context: '.',
        push: 'true',
        load: 'false',
        tags: 'a:1,a:2',
        'build-args': 'A=1,2\nB=3',
        secrets: 'NPM_TOKEN=npm-secret-value\n"PEM=-----BEGIN KEY-----\nbody-of-the-key\n"\nnot a pair',
        'api-key': 'rb_live_api_key_value',
        'github-token': 'ghs_token_value'
      }),
      SPEC
    );
    expect(inputs).toEqual({
      context: '.',
      push: 'true',
      tags: ['a:1', 'a:2'],
      'build-args': ['A=1,2', 'B=3'],
      secrets: ['NPM_TOKEN', 'PEM']
    });
    const yaml = buildInputsYaml(inputs);
    for (const secret of ['npm-secret-value', 'body-of-the-key', 'rb_live_api_key_value', 'ghs_token_value']) {
      expect(yaml).not.toContain(secret);
    }
  });

  test('a secret value pasted into another input is replaced (the API key from the input or the environment)', () => {
    const inputs = readSummaryInputs(
      io(
        {'build-args': 'KEY=rb_live_api_key_value\nRUNNER=rb_runner_tok', 'api-key': 'rb_live_api_key_value'},
        {REMOTE_BUILDER_RUNNER_TOKEN: 'rb_runner_tok'}
      ),
      SPEC
    );
    expect(inputs['build-args']).toEqual(['KEY=***', 'RUNNER=***']);
  });

  test('secrets that are not KEY=value pairs show nothing, not even the line', () => {
    expect(readSummaryInputs(io({secrets: 'no pairs here'}), SPEC)).toEqual({});
  });
});

describe('buildInputsYaml', () => {
  test('plain where YAML reads it back the same, else quoted; lists as items', () => {
    expect(
      buildInputsYaml({
        context: '.',
        push: 'true',
        file: 'no',
        timeout: '600',
        target: 'a: b # c',
        labels: ['org.opencontainers.image.title=app', '- dash', 'multi\nline', '']
      })
    ).toBe(
      [
        'context: .',
        'push: true',
        'file: "no"',
        'timeout: "600"',
        'target: "a: b # c"',
        'labels:',
        '  - org.opencontainers.image.title=app',
        '  - "- dash"',
        '  - "multi\\nline"',
        '  - ""'
      ].join('\n')
    );
  });
});
