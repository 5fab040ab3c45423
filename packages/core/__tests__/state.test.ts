import {describe, expect, test} from '@jest/globals';
import {loadBuilderState, MemoryStateStore, saveBuilderState, State, type BuilderState} from '../src/state.js';

const full: BuilderState = {
  v: 1,
  builderName: 'remote-builder-0a1b2c3d',
  builderIds: ['b1', 'b2'],
  tornDownIds: ['b1'],
  certDir: '/runner/_temp/remote-builder-abc',
  apiUrl: 'https://api.example.com',
  profile: 'amd',
  buildxCreated: true
};

function storeWith(raw: string): MemoryStateStore {
  const store = new MemoryStateStore();
  store.save(State.Builder, raw);
  return store;
}

describe('state', () => {
  test('the blob lives under the key "builder"', () => {
    const store = new MemoryStateStore();
    saveBuilderState(store, full);
    expect([...store.values.keys()]).toEqual(['builder']);
  });

  test('round trip', () => {
    const store = new MemoryStateStore();
    saveBuilderState(store, full);
    expect(loadBuilderState(store)).toEqual(full);
  });

  test('round trip without the optional profile', () => {
    const store = new MemoryStateStore();
    const {profile: _profile, ...noProfile} = full;
    saveBuilderState(store, noProfile);
    const loaded = loadBuilderState(store);
    expect(loaded).toEqual(noProfile);
    expect(loaded).not.toHaveProperty('profile');
  });

  test('no state saved → undefined', () => {
    expect(loadBuilderState(new MemoryStateStore())).toBeUndefined();
  });

  test('the saved JSON holds exactly the breadcrumbs, nothing secret', () => {
    const store = new MemoryStateStore();
    saveBuilderState(store, full);
    expect(Object.keys(JSON.parse(store.get('builder')) as object).sort()).toEqual(
      ['apiUrl', 'builderIds', 'builderName', 'buildxCreated', 'certDir', 'profile', 'tornDownIds', 'v'].sort()
    );
  });

  test('fields that are not part of the state (e.g. a token or a key) are dropped on load', () => {
    const loaded = loadBuilderState(
      storeWith(JSON.stringify({...full, token: 'secret-token', client_key: '-----BEGIN PRIVATE KEY-----'}))
    );
    expect(loaded).toEqual(full);
    expect(JSON.stringify(loaded)).not.toContain('secret');
  });

  // prettier-ignore
  test.each<[number, object, Partial<BuilderState>]>([
    [1, {builderName: 'n', builderIds: [], apiUrl: 'u'}, {v: 1, builderName: 'n', builderIds: [], tornDownIds: [], certDir: '', apiUrl: 'u', buildxCreated: false}],
    [2, {builderName: 'n', builderIds: ['a'], apiUrl: 'u', tornDownIds: ['a', 7, null]}, {v: 1, builderName: 'n', builderIds: ['a'], tornDownIds: ['a'], certDir: '', apiUrl: 'u', buildxCreated: false}],
    [3, {builderName: 'n', builderIds: [], apiUrl: 'u', tornDownIds: 'a'}, {v: 1, builderName: 'n', builderIds: [], tornDownIds: [], certDir: '', apiUrl: 'u', buildxCreated: false}],
    [4, {builderName: 'n', builderIds: [], apiUrl: 'u', certDir: 5}, {v: 1, builderName: 'n', builderIds: [], tornDownIds: [], certDir: '', apiUrl: 'u', buildxCreated: false}],
    [5, {builderName: 'n', builderIds: [], apiUrl: 'u', buildxCreated: 'true'}, {v: 1, builderName: 'n', builderIds: [], tornDownIds: [], certDir: '', apiUrl: 'u', buildxCreated: false}],
    [6, {builderName: 'n', builderIds: [], apiUrl: 'u', profile: 3}, {v: 1, builderName: 'n', builderIds: [], tornDownIds: [], certDir: '', apiUrl: 'u', buildxCreated: false}]
  ])('[%d] partial blob %o loads as %o', (_n, blob, expected) => {
    expect(loadBuilderState(storeWith(JSON.stringify(blob)))).toEqual(expected);
  });

  // prettier-ignore
  test.each<[number, string, string]>([
    [1, '{', 'the saved state "builder" is not JSON'],
    [2, 'not json', 'the saved state "builder" is not JSON'],
    [3, 'null', 'the saved state "builder" is not a builder state'],
    [4, '42', 'the saved state "builder" is not a builder state'],
    [5, '"text"', 'the saved state "builder" is not a builder state'],
    [6, '[]', 'the saved state "builder" is not a builder state'],
    [7, '{}', 'the saved state "builder" is not a builder state'],
    [8, '{"builderName":"n","builderIds":["a"]}', 'the saved state "builder" is not a builder state'],
    [9, '{"builderName":"n","apiUrl":"u"}', 'the saved state "builder" is not a builder state'],
    [10, '{"builderName":"n","builderIds":"a","apiUrl":"u"}', 'the saved state "builder" is not a builder state'],
    [11, '{"builderName":"n","builderIds":["a",1],"apiUrl":"u"}', 'the saved state "builder" is not a builder state'],
    [12, '{"builderName":7,"builderIds":[],"apiUrl":"u"}', 'the saved state "builder" is not a builder state'],
    [13, '{"builderName":"n","builderIds":[],"apiUrl":null}', 'the saved state "builder" is not a builder state']
  ])('[%d] malformed blob %o throws %o', (_n, raw, message) => {
    expect(() => loadBuilderState(storeWith(raw))).toThrow(new Error(message));
  });
});

describe('MemoryStateStore', () => {
  test('get of an unknown key is empty, save overwrites', () => {
    const store = new MemoryStateStore();
    expect(store.get('x')).toBe('');
    store.save('x', '1');
    store.save('x', '2');
    expect(store.get('x')).toBe('2');
  });
});
