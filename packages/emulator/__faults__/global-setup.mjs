// Gives every worker of the faults run one folder to record its secret-scan totals in (kit/secret-scan.ts).
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

export default function globalSetup() {
  process.env.FAULTS_SCAN_DIR = mkdtempSync(join(tmpdir(), 'faults-scan-'));
}
