// Table tests of paginate() against small in-memory services that page (or fail to page) in different ways.
import {describe, expect, test} from '@jest/globals';
import {paginate, type Page} from '../../src/api/paginate.js';
import {ApiError} from '../../src/errors.js';

interface Item {
  id: string;
}

/** How a fake service answers `?page=&per_page=` over a list of items. */
interface Service {
  items: number;
  /** false: every page is page 1. */
  honoursPage?: boolean;
  /** false: every page holds all the items (when honoursPage is false too) or `ownSize` items. */
  honoursPerPage?: boolean;
  /** The page size used when per_page is not honoured, or the upper clamp when it is. */
  ownSize?: number;
  /** Put the size used into the page (`per_page`): a number to lie with, true for the size used. */
  reportPerPage?: boolean | number;
  reportTotal?: boolean;
}

function serve(s: Service): {fetchPage: (page: number, perPage: number) => Promise<Page<Item>>; asked: number[]} {
  const all = Array.from({length: s.items}, (_, i) => ({id: `i${i + 1}`}));
  const asked: number[] = [];
  const fetchPage = async (page: number, perPage: number): Promise<Page<Item>> => {
    asked.push(page);
    let size = perPage;
    if (s.honoursPerPage === false) size = s.ownSize ?? all.length;
    else if (s.ownSize !== undefined) size = Math.min(perPage, s.ownSize);
    const p = s.honoursPage === false ? 1 : page;
    const items = all.slice((p - 1) * size, p * size);
    const reported = s.reportPerPage === true ? size : s.reportPerPage === false ? undefined : s.reportPerPage;
    return {
      items,
      status: 200,
      ...(reported !== undefined ? {perPage: reported} : {}),
      ...(s.reportTotal ? {total: all.length} : {})
    };
  };
  return {fetchPage, asked};
}

const ids = (n: number, from = 1) => Array.from({length: n}, (_, i) => `i${from + i}`);

describe('paginate', () => {
  test.each<[string, Service, {perPage: number; maxPages?: number}, string[], number[]]>([
    ['empty', {items: 0}, {perPage: 2}, [], [1]],
    ['one short page', {items: 3}, {perPage: 5}, ids(3), [1]],
    ['many pages, the last one short', {items: 5}, {perPage: 2}, ids(5), [1, 2, 3]],
    ['full pages only: stops at the empty page after them', {items: 4}, {perPage: 2}, ids(4), [1, 2, 3]],
    ['full pages with a total: stops at the total', {items: 4, reportTotal: true}, {perPage: 2}, ids(4), [1, 2]],
    ['as many pages as the cap, the last one short', {items: 5}, {perPage: 2, maxPages: 3}, ids(5), [1, 2, 3]],
    [
      'a service that clamps per_page and says so: pages by its size',
      {items: 5, ownSize: 2, reportPerPage: true},
      {perPage: 10},
      ids(5),
      [1, 2, 3]
    ],
    [
      'a reported per_page larger than asked is not believed',
      {items: 5, reportPerPage: 50},
      {perPage: 2},
      ids(5),
      [1, 2, 3]
    ],
    [
      'a service that ignores paging and returns everything: the first page is all',
      {items: 5, honoursPage: false, honoursPerPage: false},
      {perPage: 2},
      ids(5),
      [1, 2]
    ],
    [
      'a service paging by a larger size of its own: followed to the end',
      {items: 7, honoursPerPage: false, ownSize: 3},
      {perPage: 2},
      ids(7),
      [1, 2, 3]
    ]
  ])('%#. %s', async (_name, service, opts, expected, asked) => {
    const s = serve(service);
    const got = await paginate({call: 'list things', noun: 'things', idOf: i => i.id, fetchPage: s.fetchPage, ...opts});
    expect(got.map(i => i.id)).toEqual(expected);
    expect(s.asked).toEqual(asked);
  });

  test.each<[string, Service, {perPage: number; maxPages?: number}, string, number[]]>([
    [
      'more full pages than the cap',
      {items: 10},
      {perPage: 1, maxPages: 3},
      'Failed to list things: HTTP 200 (unexpected response: more than 3 pages of 1 things; stopped)',
      [1, 2, 3]
    ],
    [
      'a repeated page (page ignored, per_page honoured): what is missing is unknown',
      {items: 5, honoursPage: false},
      {perPage: 2},
      'Failed to list things: HTTP 200 (unexpected response: page 2 repeats page 1 (is the page parameter ignored?); stopped)',
      [1, 2]
    ]
  ])('%#. fails on %s', async (_name, service, opts, message, asked) => {
    const s = serve(service);
    const p = paginate({call: 'list things', noun: 'things', idOf: i => i.id, fetchPage: s.fetchPage, ...opts});
    const e = await p.then(
      () => undefined,
      (err: unknown) => err
    );
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).message).toBe(message);
    expect(s.asked).toEqual(asked);
  });

  test('a page repeating an earlier, not the previous, page fails too (no cycling to the cap)', async () => {
    const pages = [
      ['a', 'b'],
      ['c', 'd'],
      ['a', 'b'],
      ['c', 'd']
    ];
    const asked: number[] = [];
    const e = await paginate<Item>({
      call: 'list things',
      noun: 'things',
      perPage: 2,
      idOf: i => i.id,
      fetchPage: async page => {
        asked.push(page);
        return {items: (pages[page - 1] ?? []).map(id => ({id})), status: 200};
      }
    }).catch((err: unknown) => err);
    expect((e as ApiError).hint).toBe(
      'unexpected response: page 3 repeats page 1 (is the page parameter ignored?); stopped'
    );
    expect(asked).toEqual([1, 2, 3]);
  });

  test('a failing page rejects the listing and nothing more is fetched', async () => {
    const asked: number[] = [];
    const failure = new Error('page 2 failed');
    const p = paginate<Item>({
      call: 'list things',
      noun: 'things',
      perPage: 1,
      idOf: i => i.id,
      fetchPage: async page => {
        asked.push(page);
        if (page === 2) throw failure;
        return {items: [{id: `i${page}`}], status: 200};
      }
    });
    await expect(p).rejects.toBe(failure);
    expect(asked).toEqual([1, 2]);
  });

  test('asks for the default page size when none is given', async () => {
    const sizes: number[] = [];
    await paginate<Item>({
      call: 'list things',
      noun: 'things',
      idOf: i => i.id,
      fetchPage: async (_page, perPage) => {
        sizes.push(perPage);
        return {items: [], status: 200};
      }
    });
    expect(sizes).toEqual([100]);
  });

  test.each([
    [{perPage: 0}, /perPage must be an integer >= 1, got 0/],
    [{perPage: 1.5}, /perPage must be an integer >= 1, got 1.5/],
    [{maxPages: 0}, /maxPages must be an integer >= 1, got 0/]
  ])('%#. refuses %j before fetching anything', async (opts, message) => {
    const s = serve({items: 3});
    await expect(
      paginate({call: 'list things', noun: 'things', idOf: i => i.id, fetchPage: s.fetchPage, ...opts})
    ).rejects.toThrow(message);
    expect(s.asked).toEqual([]);
  });
});
