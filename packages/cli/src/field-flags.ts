import {InputError} from '@remote-builder-actions/core';

/** API request fields and the CLI flags that set them. */
const FIELD_FLAGS: Record<string, string> = {
  name: '--name',
  provider_id: '--provider-id',
  pool_size: '--pool-size',
  labels: '--labels',
  'configuration.image': '--image',
  'configuration.capacity_type': '--capacity-type',
  'configuration.sku': '--sku',
  'configuration.storage.tier': '--storage-tier',
  'configuration.storage.size': '--storage-size',
  'configuration.storage.throughput': '--storage-throughput',
  'configuration.storage.iops': '--storage-iops',
  'configuration.storage.disk_type': '--storage-disk-type',
  'configuration.storage.performance_tier': '--storage-performance-tier',
  'configuration.byoc_sku.instance_types': '--instance-types',
  'configuration.byoc_sku.is_public': '--public',
  'configuration.byoc_sku.arch': '--arch',
  'configuration.byoc_sku.role_arn': '--role-arn',
  'configuration.byoc_sku.network_tier': '--network-tier',
  alias: '--alias',
  os: '--os',
  arch: '--arch',
  stack_id: '--stack-id',
  type: '--type',
  'service_image.image_uri': '--image-uri',
  'service_image.cloud_init_template': '--cloud-init-template',
  'settings.purge_image_versions_offset': '--purge-image-versions-offset',
  'byoc_ami.ami_id': '--ami-id',
  'byoc_ami.root_device_name': '--root-device-name'
};

/**
 * Runs `fn`; an InputError naming a request field is rethrown naming the flag too, e.g.
 * `--instance-types (configuration.byoc_sku.instance_types)`.
 */
export async function withFlagNames<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const field = e.input.replace(/\[\d+\]$/, '');
    const flag = FIELD_FLAGS[field];
    if (!flag) throw e;
    const detail = e.message.slice(`Input "${e.input}": `.length);
    const same = flag === `--${e.input.replace(/_/g, '-')}`;
    throw new InputError(same ? flag : `${flag} (${e.input})`, detail);
  }
}
