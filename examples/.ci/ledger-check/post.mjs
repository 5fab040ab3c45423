// Fails the job unless the emulator assigned exactly the expected builders and every one is torn down.
const url = process.env['INPUT_URL'];
const want = Number(process.env['INPUT_ASSIGNED']);
const res = await globalThis.fetch(`${url}/_emulator/ledger`);
if (!res.ok) {
  console.log(`::error::GET ${url}/_emulator/ledger answered ${res.status}: is the emulator still running?`);
  process.exit(1);
}
const ledger = await res.json();
for (const e of ledger.entries) {
  console.log(
    `${e.builderId} ${e.profile} ${e.arch}: ${e.terminatedAt === undefined ? 'STILL ASSIGNED' : `torn down (${e.reason})`}`
  );
}
const problems = [];
if (ledger.entries.length !== want) problems.push(`${ledger.entries.length} builders were assigned, expected ${want}`);
if (ledger.assigned !== 0) problems.push(`${ledger.assigned} builders are still assigned after the post steps`);
if (problems.length > 0) {
  console.log(`::error::${problems.join('; ')}`);
  process.exit(1);
}
console.log(`Ledger: ${want} builders assigned, all torn down.`);
