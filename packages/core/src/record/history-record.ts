import {BinaryReader, WireType} from '@bufbuild/protobuf/wire';

/**
 * BuildKit's build history record (moby.buildkit.v1.BuildHistoryRecord, api/services/control/control.proto),
 * decoded from the protobuf `ListenBuildHistory` streams. Field numbers are BuildKit's (unchanged since
 * history came in v0.11; later fields are absent from older BuildKits). Unknown fields are skipped, as
 * protobuf readers do. int64 values stay bigint: JSON needs them exact.
 */
export interface HistoryDescriptor {
  mediaType: string;
  digest: string;
  size: bigint;
  annotations: [string, string][];
}

export interface HistoryResult {
  resultDeprecated?: HistoryDescriptor;
  attestations: HistoryDescriptor[];
  /** map<int64, Descriptor>, in the order received. */
  results: [bigint, HistoryDescriptor][];
}

export interface HistoryTimestamp {
  seconds: bigint;
  nanos: number;
}

export interface HistoryStatus {
  code: number;
  message: string;
  details: {typeUrl: string; value: Uint8Array}[];
}

export interface HistoryRecord {
  ref: string;
  frontend: string;
  frontendAttrs: [string, string][];
  exporters: {type: string; attrs: [string, string][]}[];
  error?: HistoryStatus;
  createdAt?: HistoryTimestamp;
  completedAt?: HistoryTimestamp;
  logs?: HistoryDescriptor;
  exporterResponse: [string, string][];
  result?: HistoryResult;
  /** map<string, BuildResultInfo>, in the order received. */
  results: [string, HistoryResult][];
  generation: number;
  trace?: HistoryDescriptor;
  pinned: boolean;
  numCachedSteps: number;
  numTotalSteps: number;
  numCompletedSteps: number;
  externalError?: HistoryDescriptor;
  numWarnings: number;
}

/** BuildHistoryEventType: STARTED 0, COMPLETE 1, DELETED 2. */
export const HistoryEventType = {Started: 0, Complete: 1, Deleted: 2} as const;

export interface HistoryEvent {
  type: number;
  record?: HistoryRecord;
}

/** One BuildHistoryEvent: field 1 `type` (enum), field 2 `record`. */
export function decodeHistoryEvent(bytes: Uint8Array): HistoryEvent {
  const event: HistoryEvent = {type: HistoryEventType.Started};
  fields(bytes, (field, r, wire) => {
    if (field === 1 && wire === WireType.Varint) event.type = r.int32();
    else if (field === 2 && wire === WireType.LengthDelimited) event.record = decodeRecord(r.bytes());
    else return false;
    return true;
  });
  return event;
}

export function decodeRecord(bytes: Uint8Array): HistoryRecord {
  const rec: HistoryRecord = {
    ref: '',
    frontend: '',
    frontendAttrs: [],
    exporters: [],
    exporterResponse: [],
    results: [],
    generation: 0,
    pinned: false,
    numCachedSteps: 0,
    numTotalSteps: 0,
    numCompletedSteps: 0,
    numWarnings: 0
  };
  fields(bytes, (field, r, wire) => {
    if (wire === WireType.LengthDelimited) {
      if (field === 1) rec.ref = r.string();
      else if (field === 2) rec.frontend = r.string();
      else if (field === 3) rec.frontendAttrs.push(stringEntry(r.bytes()));
      else if (field === 4) rec.exporters.push(decodeExporter(r.bytes()));
      else if (field === 5) rec.error = decodeStatus(r.bytes());
      else if (field === 6) rec.createdAt = decodeTimestamp(r.bytes());
      else if (field === 7) rec.completedAt = decodeTimestamp(r.bytes());
      else if (field === 8) rec.logs = decodeDescriptor(r.bytes());
      else if (field === 9) rec.exporterResponse.push(stringEntry(r.bytes()));
      else if (field === 10) rec.result = decodeResult(r.bytes());
      else if (field === 11) rec.results.push(resultEntry(r.bytes()));
      else if (field === 13) rec.trace = decodeDescriptor(r.bytes());
      else if (field === 18) rec.externalError = decodeDescriptor(r.bytes());
      else return false;
    } else if (wire === WireType.Varint) {
      if (field === 12) rec.generation = r.int32();
      else if (field === 14) rec.pinned = r.bool();
      else if (field === 15) rec.numCachedSteps = r.int32();
      else if (field === 16) rec.numTotalSteps = r.int32();
      else if (field === 17) rec.numCompletedSteps = r.int32();
      else if (field === 19) rec.numWarnings = r.int32();
      else return false;
    } else return false;
    return true;
  });
  return rec;
}

function decodeDescriptor(bytes: Uint8Array): HistoryDescriptor {
  const d: HistoryDescriptor = {mediaType: '', digest: '', size: 0n, annotations: []};
  fields(bytes, (field, r, wire) => {
    if (field === 1 && wire === WireType.LengthDelimited) d.mediaType = r.string();
    else if (field === 2 && wire === WireType.LengthDelimited) d.digest = r.string();
    else if (field === 3 && wire === WireType.Varint) d.size = BigInt(r.int64());
    else if (field === 5 && wire === WireType.LengthDelimited) d.annotations.push(stringEntry(r.bytes()));
    else return false;
    return true;
  });
  return d;
}

function decodeResult(bytes: Uint8Array): HistoryResult {
  const res: HistoryResult = {attestations: [], results: []};
  fields(bytes, (field, r, wire) => {
    if (wire !== WireType.LengthDelimited) return false;
    if (field === 1) res.resultDeprecated = decodeDescriptor(r.bytes());
    else if (field === 2) res.attestations.push(decodeDescriptor(r.bytes()));
    else if (field === 3) {
      let key = 0n;
      let value: HistoryDescriptor = {mediaType: '', digest: '', size: 0n, annotations: []};
      fields(r.bytes(), (f, e, w) => {
        if (f === 1 && w === WireType.Varint) key = BigInt(e.int64());
        else if (f === 2 && w === WireType.LengthDelimited) value = decodeDescriptor(e.bytes());
        else return false;
        return true;
      });
      res.results.push([key, value]);
    } else return false;
    return true;
  });
  return res;
}

function resultEntry(bytes: Uint8Array): [string, HistoryResult] {
  let key = '';
  let value: HistoryResult = {attestations: [], results: []};
  fields(bytes, (field, r, wire) => {
    if (field === 1 && wire === WireType.LengthDelimited) key = r.string();
    else if (field === 2 && wire === WireType.LengthDelimited) value = decodeResult(r.bytes());
    else return false;
    return true;
  });
  return [key, value];
}

function decodeExporter(bytes: Uint8Array): HistoryRecord['exporters'][number] {
  const e: HistoryRecord['exporters'][number] = {type: '', attrs: []};
  fields(bytes, (field, r, wire) => {
    if (field === 1 && wire === WireType.LengthDelimited) e.type = r.string();
    else if (field === 2 && wire === WireType.LengthDelimited) e.attrs.push(stringEntry(r.bytes()));
    else return false;
    return true;
  });
  return e;
}

/** google.rpc.Status: 1 code, 2 message, 3 details (google.protobuf.Any: 1 type_url, 2 value). */
function decodeStatus(bytes: Uint8Array): HistoryStatus {
  const s: HistoryStatus = {code: 0, message: '', details: []};
  fields(bytes, (field, r, wire) => {
    if (field === 1 && wire === WireType.Varint) s.code = r.int32();
    else if (field === 2 && wire === WireType.LengthDelimited) s.message = r.string();
    else if (field === 3 && wire === WireType.LengthDelimited) {
      const any = {typeUrl: '', value: new Uint8Array()};
      fields(r.bytes(), (f, a, w) => {
        if (f === 1 && w === WireType.LengthDelimited) any.typeUrl = a.string();
        else if (f === 2 && w === WireType.LengthDelimited) any.value = a.bytes().slice();
        else return false;
        return true;
      });
      s.details.push(any);
    } else return false;
    return true;
  });
  return s;
}

/** google.protobuf.Timestamp: 1 seconds (int64), 2 nanos (int32). */
function decodeTimestamp(bytes: Uint8Array): HistoryTimestamp {
  const t: HistoryTimestamp = {seconds: 0n, nanos: 0};
  fields(bytes, (field, r, wire) => {
    if (field === 1 && wire === WireType.Varint) t.seconds = BigInt(r.int64());
    else if (field === 2 && wire === WireType.Varint) t.nanos = r.int32();
    else return false;
    return true;
  });
  return t;
}

/** A map<string, string> entry: 1 key, 2 value. */
function stringEntry(bytes: Uint8Array): [string, string] {
  let key = '';
  let value = '';
  fields(bytes, (field, r, wire) => {
    if (field === 1 && wire === WireType.LengthDelimited) key = r.string();
    else if (field === 2 && wire === WireType.LengthDelimited) value = r.string();
    else return false;
    return true;
  });
  return [key, value];
}

/** Reads each field of a message; `read` consumes the value and returns true, or false to have it skipped. */
function fields(bytes: Uint8Array, read: (field: number, r: BinaryReader, wire: WireType) => boolean): void {
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (!read(field, r, wire)) r.skip(wire, field);
  }
}
