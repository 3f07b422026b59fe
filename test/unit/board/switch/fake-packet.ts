/**
 * Test helper: a PacketView built by hand (the switch tests do not depend on the parser, which is
 * another module's work). The frame holds an Ethernet header (dst MAC, src MAC, ethertype) so the
 * l2 profile has bytes to read; the tuples come from text via tupleFromText.
 */
import { FlowTuple, type PacketView } from '../../../../board/packet/flow-tuple.ts';
import { tupleFromText, type FlowText } from '../../../../board/switch/place-flow.ts';

export interface FakePacketSpec {
  /** The (outer) flow; omitted = no IP header (family 0). */
  flow?: FlowText;
  /** Inner flow of a tunnel (tunnelDepth 1); omitted = same as outer. */
  inner?: FlowText;
  /** MACs as 'aa:bb:cc:dd:ee:ff'; omitted with `noEthernet` = no Ethernet header. */
  srcMac?: string;
  dstMac?: string;
  noEthernet?: boolean;
  vlans?: number[];
  fragment?: boolean;
  origLen?: number;
}

function mac(text: string): number[] {
  return text.split(':').map((h) => parseInt(h, 16));
}

/** Builds a PacketView per `spec`. */
export function fakePacket(spec: FakePacketSpec): PacketView {
  const outer = new FlowTuple();
  if (spec.flow) outer.copyFrom(tupleFromText(spec.flow));
  outer.fragment = spec.fragment ?? false;
  const inner = new FlowTuple();
  if (spec.inner) inner.copyFrom(tupleFromText(spec.inner));
  else inner.copyFrom(outer);
  const vlans = spec.vlans ?? [];
  const frame = new Uint8Array(64);
  let ethOffset = -1;
  if (!spec.noEthernet) {
    ethOffset = 0;
    frame.set(mac(spec.dstMac ?? '02:00:00:00:00:02'), 0);
    frame.set(mac(spec.srcMac ?? '02:00:00:00:00:01'), 6);
  }
  const vlanIds = new Uint16Array(4);
  vlans.forEach((v, i) => (vlanIds[i] = v));
  return {
    frame,
    origLen: spec.origLen ?? 64,
    linkType: spec.noEthernet ? 101 : 1,
    ethOffset,
    vlanCount: vlans.length,
    vlanIds,
    outer,
    inner,
    tunnelDepth: spec.inner ? 1 : 0,
    icmpError: false,
    quoted: new FlowTuple(),
    malformed: false,
  };
}
