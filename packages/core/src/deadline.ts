/** A time limit of ours ran out (not a cancellation by the user). See Clock.deadline. */
export class DeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeadlineError';
  }
}
