import type {Emulator} from '../index.js';

/** Says so when the emulator's PKI pool ran out: later assignments made their certificates on the bench's cores. */
export function warnIfPoolRanOut(emu: Emulator): void {
  if (emu.pkiPoolLeft === 0) {
    console.warn('bench: the PKI pool ran out; later assignments made their certificates while measured');
  }
}
