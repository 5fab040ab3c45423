import type {ProvisionedBuilder} from '../lifecycle/profile-provision.js';
import type {RecordNode} from './buildkit-history.js';

/**
 * The nodes of our builder as the record's direct export reaches them: each buildx node with the endpoint and
 * TLS material of its ready builder. A node whose builder is not among the ready ones is left out (its
 * records, if any, come through buildx).
 */
export function recordNodes(builder: Pick<ProvisionedBuilder, 'nodes' | 'ready'>): RecordNode[] {
  return builder.nodes.flatMap(node => {
    const ready = builder.ready.find(r => r.id === node.builderId);
    if (!ready) return [];
    return [
      {
        name: node.name,
        hostname: ready.endpoint.hostname,
        port: ready.endpoint.port,
        pems: ready.pems,
        platforms: node.platforms
      }
    ];
  });
}
