import {
  EarlyPhase,
  INSTALL_BUILDX_ALTERNATIVE,
  StepRun,
  checkStepLocally,
  earlyPhase,
  readStepInputs,
  exportInstalledBuildx,
  openStepContext,
  type ActionIO,
  type ProvisionedBuilder,
  type StepDeps
} from '@remote-builder-actions/core/step';
import {getInputs, Input, Output} from './context.js';

/** Variables exported for later steps so docker's actions skip what these builders cannot do (spec §1 rule 9). */
export const DOCKER_BUILD_EXPORTS = [
  'DOCKER_BUILD_SUMMARY',
  'DOCKER_BUILD_RECORD_UPLOAD',
  'DOCKER_BUILD_CHECKS_ANNOTATIONS'
];

/**
 * The configure action's main step, in order: read and validate inputs; open the step (buildx installed);
 * the local checks (buildx, unless setup-buildx is false) before anything is assigned; acquire builders
 * (assign, wait until ready, write their certificates, set up the buildx remote driver); set the outputs. The
 * builders stay assigned for later steps: post tears them down and writes the run's job summary.
 */
export async function configure(deps: StepDeps): Promise<ProvisionedBuilder> {
  const {io} = deps;
  // A failure before anything is assigned is recorded: post writes its short block in the job summary.
  const early = {action: 'configure' as const, secretInputs: [Input.ApiKey]};
  const inputs = readStepInputs(io, early, () => getInputs(io));
  io.logger.setSecret(inputs.credentials.token);

  // The context reads DOCKER_BUILD_SUMMARY before the export below turns it off for later steps.
  const ctx = await earlyPhase(io, {...early, phase: EarlyPhase.BuildxInstall, signal: deps.signal}, () =>
    openStepContext(deps, inputs['buildx-version'])
  );
  // Later steps build on this builder with their own docker calls: they must run the same buildx.
  if (ctx.installed) exportInstalledBuildx(io, ctx.installed);
  exportDockerBuildVariables(io);

  // buildx is checked before anything is assigned: a runner without it bills nothing (the run records the failure).
  if (inputs['setup-buildx']) {
    const checks = {...early, phase: EarlyPhase.LocalChecks, summary: ctx.summary, signal: ctx.signal};
    await earlyPhase(io, checks, () =>
      checkStepLocally(ctx, {
        buildx: {
          note: 'nothing was assigned',
          alternative: [
            ...(inputs['buildx-version'].kind === 'runner' ? [INSTALL_BUILDX_ALTERNATIVE] : []),
            `set "${Input.SetupBuildx}: false" to only assign the builders`
          ].join(', or ')
        }
      })
    );
  }
  const run = StepRun.forStep(ctx, {
    action: 'configure',
    token: inputs.credentials.token,
    apiUrl: inputs['api-url'],
    timeoutMs: inputs.timeout,
    timeoutName: Input.Timeout,
    sizeHint: inputs['builder-size']
  });
  try {
    const builder = await run.acquire({
      profiles: inputs['profile-name'],
      setupBuildx: inputs['setup-buildx'],
      use: inputs.use
    });
    // Post writes the step's one job summary (billing ends there) and tears the builders down.
    run.keep(builder);
    setOutputs(io, builder);
    return builder;
  } finally {
    run.close();
  }
}

/** Exports DOCKER_BUILD_* = false for later steps unless the user set them. */
export function exportDockerBuildVariables(io: Pick<ActionIO, 'env' | 'exportVariable' | 'logger'>): void {
  for (const name of DOCKER_BUILD_EXPORTS) {
    if (io.env[name] === undefined) {
      io.exportVariable(name, 'false');
      io.logger.debug(`configure: exported ${name}=false`);
    }
  }
}

function setOutputs(io: ActionIO, b: ProvisionedBuilder): void {
  io.setOutput(Output.Name, b.name);
  io.setOutput(Output.TimeToReady, String(b.timeToReadyMs));
  io.setOutput(Output.Platforms, b.platforms.join(','));
  io.setOutput(Output.BuilderIds, b.builderIds.join(','));
  io.setOutput(
    Output.Nodes,
    JSON.stringify(
      b.nodes.map(n => ({
        name: n.name,
        'builder-id': n.builderId,
        endpoint: n.endpoint,
        platforms: n.platforms.join(','),
        cacert: n.certs.cacert,
        cert: n.certs.cert,
        key: n.certs.key
      }))
    )
  );
}
