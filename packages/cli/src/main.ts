// Entry point of the remote-builder CLI (bin/remote-builder.js loads it through tsx).
import {runCli} from './cli.js';

// A closed pipe (e.g. `remote-builder runners list | head -1`) is not an error worth a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
});

const code = await runCli(process.argv.slice(2), {env: process.env, stdout: process.stdout, stderr: process.stderr});
process.exitCode = code;
// Nothing should be left running; should a handle linger, do not let it hold the exit (this timer does not).
setTimeout(() => process.exit(code), 3000).unref();
