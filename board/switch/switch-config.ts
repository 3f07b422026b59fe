/**
 * Configuration of a hub (switch) board's ECMP stage, as the shelf YAML's `dataplane.ecmp`
 * section gives it (parsed and validated by chassis/config; defaults below).
 * Both hubs of a shelf share one ECMP configuration and one bucket table.
 */

/** Which header fields feed the hash (a switch chip's hash profile). */
export type FieldSet = 'l2' | 'l3' | 'l3l4';
/** Hash functions offered by the switch chip model. */
export type HashAlgorithmName = 'pearson' | 'crc32' | 'crc16' | 'toeplitz';
/** How a hash value maps to a member (egress port). */
export type EgressMapping = 'modulo' | 'resilient';
/** Which IP header a tunnelled packet is hashed on. */
export type TunnelHeader = 'outer' | 'inner';

export interface EcmpConfig {
  /** Default 'l3l4' (5-tuple): NAT puts many users behind one address. */
  fields: FieldSet;
  /** Default 'pearson' (FM4224-style, 16-bit). */
  hash: HashAlgorithmName;
  /** Order the two endpoints before hashing so both directions of a flow hash alike. Default false
   * in the library; the default shelf turns it on because replies come back through the balancer. */
  symmetric: boolean;
  /** Default 'resilient'. */
  mapping: EgressMapping;
  /** Bucket count of the resilient table (power of two not required). Default 4096. */
  buckets: number;
  /** Default 'outer'. */
  tunnel: TunnelHeader;
  /** 40-byte Toeplitz key as 80 hex digits; default the Microsoft RSS verification key 6d5a56da…. */
  toeplitzKey: string;
}

export const DEFAULT_ECMP: Readonly<EcmpConfig> = {
  fields: 'l3l4',
  hash: 'pearson',
  symmetric: false,
  mapping: 'resilient',
  buckets: 4096,
  tunnel: 'outer',
  toeplitzKey: '6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa',
};

/** One ECMP group member: a hub fabric port leading to a processor board. */
export interface EcmpMember {
  /** Hub port number (1-based), as `atcasim hash --config` prints it. */
  port: number;
  /** Logical slot of the board behind the port. */
  slot: number;
  /** Member (port) that takes this member's buckets when it goes down (its HA buddy), if any. */
  failoverPort?: number;
}
