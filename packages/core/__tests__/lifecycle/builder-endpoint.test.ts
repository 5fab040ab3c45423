import {describe, expect, test} from '@jest/globals';
import {
  DEFAULT_BUILDER_PORT,
  parseBuilderEndpoint,
  type BuilderEndpoint
} from '../../src/lifecycle/builder-endpoint.js';

describe('parseBuilderEndpoint', () => {
  test('the default port is the Docker-over-TLS one', () => {
    expect(DEFAULT_BUILDER_PORT).toBe(2376);
  });

  // prettier-ignore
  test.each<[number, string, BuilderEndpoint]>([
    [1, '1.2.3.4', {hostname: '1.2.3.4', port: 2376, url: 'tcp://1.2.3.4:2376', defaultedPort: true}],
    [2, '1.2.3.4:1234', {hostname: '1.2.3.4', port: 1234, url: 'tcp://1.2.3.4:1234', defaultedPort: false}],
    [3, 'tcp://h:1', {hostname: 'h', port: 1, url: 'tcp://h:1', defaultedPort: false}],
    [4, 'tcp://h', {hostname: 'h', port: 2376, url: 'tcp://h:2376', defaultedPort: true}],
    [5, '[::1]:99', {hostname: '::1', port: 99, url: 'tcp://[::1]:99', defaultedPort: false}],
    [6, '[::1]', {hostname: '::1', port: 2376, url: 'tcp://[::1]:2376', defaultedPort: true}],
    [7, 'tcp://[2001:db8::5]:1234', {hostname: '2001:db8::5', port: 1234, url: 'tcp://[2001:db8::5]:1234', defaultedPort: false}],
    [8, 'localhost:5', {hostname: 'localhost', port: 5, url: 'tcp://localhost:5', defaultedPort: false}],
    [9, 'builder-1.example.com:8443', {hostname: 'builder-1.example.com', port: 8443, url: 'tcp://builder-1.example.com:8443', defaultedPort: false}],
    [10, '  10.0.0.7:1234\n', {hostname: '10.0.0.7', port: 1234, url: 'tcp://10.0.0.7:1234', defaultedPort: false}],
    [11, 'tcp://h:1/', {hostname: 'h', port: 1, url: 'tcp://h:1', defaultedPort: false}],
    [12, 'TCP://h:65535', {hostname: 'h', port: 65535, url: 'tcp://h:65535', defaultedPort: false}]
  ])('[%d] parses %o as %o', (_n, host, expected) => {
    expect(parseBuilderEndpoint(host)).toEqual(expected);
  });

  // prettier-ignore
  test.each<[number, string, string]>([
    [1, '', 'the builder host is empty'],
    [2, '   ', 'the builder host is empty'],
    [3, 'http://x', 'the builder host "http://x" uses http://; expected tcp://'],
    [4, 'https://x:443', 'the builder host "https://x:443" uses https://; expected tcp://'],
    [5, 'unix:///run/buildkit.sock', 'the builder host "unix:///run/buildkit.sock" uses unix://; expected tcp://'],
    [6, 'h/path', 'the builder host "h/path" has a path, query, fragment or user part; expected host[:port]'],
    [7, 'tcp://h:1/x', 'the builder host "tcp://h:1/x" has a path, query, fragment or user part; expected host[:port]'],
    [8, 'h:1?x=1', 'the builder host "h:1?x=1" has a path, query, fragment or user part; expected host[:port]'],
    [9, 'user@h:1', 'the builder host "user@h:1" has a path, query, fragment or user part; expected host[:port]'],
    [10, 'h:abc', 'the builder host "h:abc" is not an address'],
    [11, 'h:99999', 'the builder host "h:99999" is not an address'],
    [12, '::1', 'the builder host "::1" is not an address'],
    [13, 'tcp://', 'the builder host "tcp://" has no hostname'],
    [14, 'h h:1', 'the builder host "h h:1" is not an address']
  ])('[%d] rejects %o with %o', (_n, host, message) => {
    expect(() => parseBuilderEndpoint(host)).toThrow(new Error(message));
  });
});
