import {parseDockerBool} from '../docker/input-list.js';
import type {Logger} from '../logger.js';

/** docker's variables for the build record's upload, as its v7 build-push and bake actions name them. */
export enum RecordEnv {
  /** `false` uploads nothing; the record is still exported and summarised. */
  Upload = 'DOCKER_BUILD_RECORD_UPLOAD',
  /** The artifact's retention in days. */
  RetentionDays = 'DOCKER_BUILD_RECORD_RETENTION_DAYS'
}

/** What the variables ask of the upload. */
export interface RecordSwitches {
  upload: boolean;
  /** Undefined: the repository's default retention. */
  retentionDays?: number;
}

/**
 * Reads DOCKER_BUILD_RECORD_UPLOAD and DOCKER_BUILD_RECORD_RETENTION_DAYS with docker's meaning. Unlike docker,
 * a value that cannot be read is one warning and the default (upload on; the repository's retention), never
 * a skipped summary.
 */
export function readRecordSwitches(env: NodeJS.ProcessEnv, logger: Pick<Logger, 'warning'>): RecordSwitches {
  const out: RecordSwitches = {upload: true};
  const upload = env[RecordEnv.Upload];
  if (upload) {
    try {
      out.upload = parseDockerBool(upload);
    } catch {
      logger.warning(
        `${RecordEnv.Upload}="${upload}" is not a boolean (use true or false); uploading the build record`
      );
    }
  }
  const days = env[RecordEnv.RetentionDays];
  if (days) {
    const n = Number(days.trim());
    if (Number.isInteger(n) && n > 0) out.retentionDays = n;
    else {
      logger.warning(
        `${RecordEnv.RetentionDays}="${days}" is not a number of days (e.g. 7); the build record keeps the repository's default retention`
      );
    }
  }
  return out;
}
