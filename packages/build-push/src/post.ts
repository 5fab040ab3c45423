import {actionsIO} from '@remote-builder-actions/core/actions';
import {BuildStepState, runPostStep, runStep} from '@remote-builder-actions/core';
import {Input} from './context.js';
import {SUMMARY_INPUTS} from './summary.js';

const io = actionsIO();
void runStep(io, 'post', () =>
  runPostStep(
    {io},
    {
      apiKeyInput: Input.ApiKey,
      builderInput: Input.Builder,
      tmpDirState: BuildStepState.TmpDir,
      summaryInputs: SUMMARY_INPUTS
    }
  )
);
