import {
  INSTALL_BUILDX_ALTERNATIVE,
  Provisioner,
  RunRecorder,
  buildSummaryEnabled,
  exportInstalledBuildx,
  injectedDeps,
  setUpStepBuildx,
  stepBuildx,
  type ActionIO,
  type ProvisionedBuilder,
  type StepDeps
} from '@remote-builder-actions/core';
import {getInputs, Input, Output} from './context.js';

/** Variables exported for later steps so docker's actions skip what these builders cannot do (spec §1 rule 9). */
export const DOCKER_BUILD_EXPORTS = [
  'DOCKER_BUILD_SUMMARY',
  'DOCKER_BUILD_RECORD_UPLOAD',
  'DOCKER_BUILD_CHECKS_ANNOTATIONS'
];

/**
 * The configure action's main step: validate inputs, check buildx locally, assign builders, wait until they
 * are ready, write their certificates, set up the buildx remote driver, and set the outputs. The builders stay
 * assigned for later steps: post tears them down.
 */
export async function configure(deps: StepDeps): Promise<ProvisionedBuilder> {
  const {io} = deps;
  const inputs = getInputs(io);
  io.logger.setSecret(inputs.credentials.token);

  // buildx-version: installed before anything is assigned (a failed download bills nothing and records no run).
  const installed = await setUpStepBuildx({
    request: inputs['buildx-version'],
    io,
    ...(deps.signal ? {signal: deps.signal} : {}),
    ...(deps.loadToolCache ? {loadToolCache: deps.loadToolCache} : {})
  });
  // Later steps build on this builder with their own docker calls: they must run the same buildx.
  if (installed.installed) exportInstalledBuildx(io, installed.installed);
  const buildx = stepBuildx(deps, installed.env);
  // Read before the export below turns it off for later steps: post writes this step's summary.
  const recorder = new RunRecorder({
    action: 'configure',
    state: io.state,
    summary: buildSummaryEnabled(io),
    secrets: [inputs.credentials.token],
    ...(inputs['builder-size'] ? {sizeHint: inputs['builder-size']} : {})
  });
  exportDockerBuildVariables(io);

  const provisioner = new Provisioner({
    apiUrl: inputs['api-url'],
    token: inputs.credentials.token,
    state: io.state,
    logger: io.logger,
    buildx,
    timeoutMs: inputs.timeout,
    timeoutName: Input.Timeout,
    env: io.env,
    certRoot: io.env['RUNNER_TEMP'],
    recorder,
    ...injectedDeps(deps)
  });
  try {
    // buildx is checked before anything is assigned: a runner without it bills nothing (and records no run).
    if (inputs['setup-buildx']) {
      await provisioner.checkLocal({
        buildx: {
          note: 'nothing was assigned',
          alternative: [
            ...(inputs['buildx-version'].kind === 'runner' ? [INSTALL_BUILDX_ALTERNATIVE] : []),
            `set "${Input.SetupBuildx}: false" to only assign the builders`
          ].join(', or ')
        }
      });
    }
    let builder: ProvisionedBuilder;
    try {
      builder = await provisioner.provision({
        profiles: inputs['profile-name'],
        setupBuildx: inputs['setup-buildx'],
        use: inputs.use
      });
    } catch (e) {
      provisioner.recordFailure(e);
      throw e;
    }
    recorder.setUp();
    // Post writes the step's one job summary (billing ends there); buildx is set up only with setup-buildx.
    if (builder.buildxCreated) recorder.result({builder: builder.name});
    recorder.finish('success');
    setOutputs(io, builder);
    return builder;
  } finally {
    provisioner.close();
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
