// Nothing to do before the example runs: the check is in post.mjs.
console.log(`The ledger of ${process.env['INPUT_URL']} is checked after the job's other post steps.`);
