import type {BuilderDetails} from '../api/types.js';
import {platformsFromArch} from '../buildx/platforms.js';
import type {BuilderPems} from '../certs/cert-store.js';
import type {BuilderEndpoint} from './builder-endpoint.js';

/** A builder that answered its details with complete TLS material and accepted our mutual-TLS handshake. */
export interface ReadyBuilder {
  id: string;
  endpoint: BuilderEndpoint;
  /** `arch` from the details when the service sent it. */
  arch?: string;
  /** Platforms from `arch` (`linux/<arch>`), [] when unknown. */
  platforms: string[];
  pems: BuilderPems;
  /** Details requests sent for this builder. */
  detailsRequests: number;
  /** The details answer that made it ready (in memory only: it holds the client key). */
  details?: BuilderDetails;
}

/** The builder as its complete details describe it. */
export function readyBuilder(
  id: string,
  {details, endpoint}: {details: BuilderDetails; endpoint: BuilderEndpoint},
  detailsRequests: number
): ReadyBuilder {
  return {
    id,
    endpoint,
    arch: details.arch || undefined,
    platforms: platformsFromArch(details.arch),
    pems: {ca: details.metadata.ca, cert: details.metadata.client_cert, key: details.metadata.client_key},
    detailsRequests,
    details
  };
}
