import {describe, expect, test} from '@jest/globals';
import {Buildx} from '../../src/buildx/buildx.js';
import {parseBuilderEndpoint} from '../../src/lifecycle/builder-endpoint.js';
import {BuildxDisagreesError, buildxDisagreement} from '../../src/provisioning/buildx-agreement.js';
import {FakeExec} from '../fakes/fake-exec.js';

const ready = [
  {id: 'b1', endpoint: parseBuilderEndpoint('10.0.0.1:1234')},
  {id: 'b2', endpoint: parseBuilderEndpoint('10.0.0.2:1234')}
];

/** `buildx inspect --bootstrap rb` as buildx 0.21 prints it: exit 0 even with a node that did not boot. */
const inspect = (b2: string): string =>
  `Name:   rb\nDriver: remote\n\nNodes:\nName:      b1\nEndpoint:  tcp://10.0.0.1:1234\nStatus:    running\nPlatforms: linux/amd64*\n\nName:      b2\nEndpoint:  tcp://10.0.0.2:1234\n${b2}\n`;

function check(result: {exitCode?: number; stdout?: string; stderr?: string}) {
  const exec = new FakeExec(() => result);
  return {exec, run: () => buildxDisagreement({buildx: new Buildx({exec}), builder: 'rb', ready, timeoutMs: 1000})};
}

describe('buildxDisagreement', () => {
  test('buildx boots every node: no disagreement (the failure may pass: a retry may help)', async () => {
    const h = check({stdout: inspect('Status:    running')});
    await expect(h.run()).resolves.toBeUndefined();
    expect(h.exec.argvs).toEqual([['buildx', 'inspect', '--bootstrap', '--builder', 'rb']]);
  });

  test('buildx 0.21 says a node the proof reached is inactive: which node, what buildx said, what to check', async () => {
    const h = check({
      stdout: inspect('Status:    inactive'),
      stderr: '#1 [b2 internal] waiting for connection\n#1 ERROR: context deadline exceeded\n'
    });
    const e = await h.run();
    expect(e).toBeInstanceOf(BuildxDisagreesError);
    expect(e?.nodes).toEqual(['b2']);
    expect(e?.message).toBe(
      'buildx cannot use builder "rb" although its BuildKit answered our mutual-TLS check (b1 at 10.0.0.1:1234, b2 at 10.0.0.2:1234): ' +
        'buildx says node b2 (tcp://10.0.0.2:1234) is inactive (its boot printed: ERROR: context deadline exceeded). ' +
        "buildx dials with Go's TLS and its own route, so check that each builder's server certificate names its host in a subjectAltName (Go ignores the CN), " +
        'that the "servername" matches it, and that HTTPS_PROXY/NO_PROXY let buildx reach the host; the build was not retried, as it would fail the same way'
    );
  });

  test("a node's Error: line is what buildx said", async () => {
    const h = check({
      stdout: inspect('Error:     x509: certificate relies on legacy Common Name field, use SANs instead')
    });
    const e = await h.run();
    expect(e?.nodes).toEqual(['b2']);
    expect(e?.message).toContain(
      'buildx says node b2 (tcp://10.0.0.2:1234) failed: x509: certificate relies on legacy Common Name field, use SANs instead.'
    );
  });

  test('buildx fails outright: its last line is what it said', async () => {
    const h = check({exitCode: 1, stderr: 'ERROR: failed to connect: tls: failed to verify certificate\n'});
    const e = await h.run();
    expect(e?.nodes).toEqual([]);
    expect(e?.message).toContain('buildx says ERROR: failed to connect: tls: failed to verify certificate.');
  });
});
