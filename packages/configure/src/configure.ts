import {
  Buildx,
  BuilderLifecycle,
  BuilderTimeoutError,
  buildSummaryEnabled,
  RunRecorder,
  explainTimeout,
  CancelledError,
  createBuilderApiClient,
  DEFAULT_IN_FLIGHT_GRACE_MS,
  errorMessage,
  type ActionIO,
  type BuilderApi,
  type Clock,
  type PollSchedule,
  type ProvisionedBuilder,
  type TlsProbe
} from '@remote-builder-actions/core';
import {getInputs, Input, Output, type Inputs} from './context.js';

/** Variables exported for later steps so docker's actions skip what these builders cannot do (spec §1 rule 9). */
export const DOCKER_BUILD_EXPORTS = [
  'DOCKER_BUILD_SUMMARY',
  'DOCKER_BUILD_RECORD_UPLOAD',
  'DOCKER_BUILD_CHECKS_ANNOTATIONS'
];

export interface ConfigureDeps {
  io: ActionIO;
  /** Builds the API client; default ApiClient. */
  makeApi?: (apiUrl: string, token: string) => BuilderApi & {close(): void};
  buildx?: Buildx;
  clock?: Clock;
  probe?: TlsProbe;
  schedule?: PollSchedule;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/**
 * The configure action's main step: validate inputs, assign builders, wait until they are ready,
 * write their certificates, set up the buildx remote driver, and set the outputs.
 */
export async function configure(deps: ConfigureDeps): Promise<ProvisionedBuilder> {
  const {io} = deps;
  const inputs = getInputs(io);
  io.logger.setSecret(inputs.credentials.token);

  const buildx = deps.buildx ?? new Buildx({logger: io.logger});
  // Read before the export below turns it off for later steps: post writes this step's summary.
  const recorder = new RunRecorder({
    action: 'configure',
    state: io.state,
    summary: buildSummaryEnabled(io),
    secrets: [inputs.credentials.token],
    ...(inputs['builder-size'] ? {sizeHint: inputs['builder-size']} : {})
  });
  exportDockerBuildVariables(io);

  const api = deps.makeApi
    ? deps.makeApi(inputs['api-url'], inputs.credentials.token)
    : createBuilderApiClient({
        apiUrl: inputs['api-url'],
        token: inputs.credentials.token,
        env: io.env,
        logger: io.logger,
        assignTimeoutMs: inputs.timeout + DEFAULT_IN_FLIGHT_GRACE_MS + 1000
      });
  try {
    // buildx is checked before anything is assigned: a runner without it bills nothing.
    if (inputs['setup-buildx']) {
      try {
        io.logger.info(`docker buildx ${await buildx.version({signal: deps.signal})}`);
      } catch (e) {
        if (deps.signal?.aborted) throw new CancelledError(`${errorMessage(e)} while checking docker buildx`);
        throw new Error(
          `${errorMessage(e)}: run on a runner with the Docker CLI and buildx, or set "${Input.SetupBuildx}: false" to only assign the builders; nothing was assigned`,
          {cause: e}
        );
      }
    }
    const lifecycle = new BuilderLifecycle({
      api,
      apiUrl: inputs['api-url'],
      state: io.state,
      logger: io.logger,
      buildx,
      certRoot: io.env['RUNNER_TEMP'],
      recorder,
      ...(deps.clock ? {clock: deps.clock} : {}),
      ...(deps.probe ? {probe: deps.probe} : {}),
      ...(deps.schedule ? {schedule: deps.schedule} : {})
    });
    const provisioning = lifecycle.provision({
      profiles: inputs['profile-name'],
      timeoutMs: inputs.timeout,
      setupBuildx: inputs['setup-buildx'],
      use: inputs.use,
      ...(deps.signal ? {signal: deps.signal} : {})
    });
    let builder: ProvisionedBuilder;
    try {
      builder = await provisioning;
    } catch (e) {
      const explained = explain(e, inputs);
      recorder.finish(
        deps.signal?.aborted ? 'cancelled' : e instanceof BuilderTimeoutError ? 'timeout' : 'failure',
        explained
      );
      throw explained;
    }
    // The builders stay assigned for later steps: post tears them down and reports what they cost.
    recorder.finish('success');
    setOutputs(io, builder);
    await io
      .writeSummary(summaryOf(builder, inputs))
      .catch(e => io.logger.warning(`Failed to write the job summary: ${errorMessage(e)}`));
    return builder;
  } finally {
    api.close();
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

function summaryOf(b: ProvisionedBuilder, inputs: Inputs) {
  return {
    heading: 'Remote builder',
    table: [
      ['Builder', 'Profile', 'Node', 'Endpoint', 'Platforms'],
      ...b.nodes.map(n => [b.name, b.profile, n.builderId, n.endpoint, n.platforms.join(', ') || 'not reported'])
    ],
    notes: [
      `Ready after ${(b.timeToReadyMs / 1000).toFixed(1)} s (timeout ${inputs.timeout / 1000} s).`,
      b.buildxCreated
        ? `buildx builder "${b.name}"${inputs.use ? ' is the default builder' : ''}.`
        : 'buildx was not set up (setup-buildx: false).'
    ]
  };
}

/** Adds the input to change when the builders were not ready in time (not when the service kept failing). */
function explain(e: unknown, inputs: Inputs): unknown {
  return explainTimeout(e, inputs.timeout, Input.Timeout);
}
