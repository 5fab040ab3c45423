/** The run was cancelled (SIGINT/SIGTERM) while the lifecycle was working. */
export class CancelledError extends Error {
  constructor(message = 'Cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}
