// Types of buildx-store.mjs, for the TypeScript tests that keep builders as the fake docker does.

/** A node of a builder's record, as buildx stores it (store.Node). */
export interface StoreRecordNode {
  Name: string;
  Endpoint: string;
  Platforms: {architecture: string; os: string; variant?: string}[] | null;
  DriverOpts: Record<string, string> | null;
  Flags: string[] | null;
  Files: null;
}

/** A builder's record, as buildx stores it (store.NodeGroup). */
export interface StoreRecord {
  Name: string;
  Driver: string;
  Nodes: StoreRecordNode[];
  Dynamic: boolean;
}

export interface CreateSpec {
  name: string;
  append: boolean;
  /** `--node`; undefined: buildx names it `<name><n>`. */
  node: string | undefined;
  driver: string | undefined;
  endpoint: string;
  /** Every `--platform` value. */
  platforms: string[];
  /** Every `--driver-opt` value. */
  driverOpts: string[];
}

export interface BuildxRecords {
  read(name: string): StoreRecord | undefined;
  list(): StoreRecord[];
  /** An error message, or undefined once saved. */
  create(spec: CreateSpec): string | undefined;
  remove(name: string): void;
}

export const NAME: RegExp;
export function invalidName(name: string): string;
export function buildxConfigDir(env?: Record<string, string | undefined>): string;
export function buildxRecords(dir: string): BuildxRecords;
export function fakeBuilder(record: StoreRecord): {
  nodes: ({node: string; endpoint: string; platforms: string; driver: string} & Record<string, string>)[];
};
export function formatPlatform(p: {architecture: string; os: string; variant?: string}): string;
export function parsePlatform(spec: string): {architecture: string; os: string; variant?: string};
