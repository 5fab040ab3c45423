import {describe, expect, test} from '@jest/globals';
import {buildInputsYaml, readSummaryInputs} from '@remote-builder-actions/core/step';
import {SUMMARY_INPUTS} from '../src/summary.js';

describe("build-push's inputs in docker's Build inputs section", () => {
  test('lists split as the action splits them, secrets by key, the keys and tokens never', () => {
    const inputs: Record<string, string> = {
      context: '.',
      push: 'true',
      load: 'false',
      tags: 'ghcr.io/o/app:1,ghcr.io/o/app:latest',
      'build-args': 'A=1,2\nB=3',
      outputs: 'type=local,dest="out"',
      secrets: 'NPM_TOKEN=npm-secret-value\nGH=ghs_other_secret',
      'secret-files': 'cert=/tmp/cert.pem',
      'api-key': 'rb_live_api_key_value',
      'github-token': 'ghs_token_value',
      'profile-name': 'ci'
    };
    const shown = readSummaryInputs({getInput: n => inputs[n] ?? '', env: {}}, SUMMARY_INPUTS);
    expect(shown).toEqual({
      context: '.',
      outputs: ['type=local,dest="out"'],
      push: 'true',
      secrets: ['NPM_TOKEN', 'GH'],
      'secret-files': ['cert=/tmp/cert.pem'],
      tags: ['ghcr.io/o/app:1', 'ghcr.io/o/app:latest'],
      'build-args': ['A=1,2', 'B=3'],
      'profile-name': 'ci'
    });
    const yaml = buildInputsYaml(shown);
    for (const secret of ['npm-secret-value', 'ghs_other_secret', 'rb_live_api_key_value', 'ghs_token_value']) {
      expect(yaml).not.toContain(secret);
    }
  });
});
