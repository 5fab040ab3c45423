// Every fault test may take 90 s: a scenario runs main and post as child processes, some wait out a timeout
// input or a teardown budget, and up to 8 run at once on a loaded machine (jest.faults.config.js).
import {jest} from '@jest/globals';

jest.setTimeout(90_000);
