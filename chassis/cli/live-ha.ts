/**
 * The live shelf's HA part (`atcasim start`, and the processor pairs of `--split`): the emulator's
 * HA part (chassis/runtime/ha-part.ts) in wall-clock mode, its pairs on real UDP datagrams between
 * the members (chassis/io/udp-pair-link.ts: one flow per node and share on 127.0.0.1, free ports),
 * and the simulator's node faults for the operator's hang (chassis/sim/ha-simulator.ts, live mode:
 * per-node freezable clocks, nothing recorded). The flows' addresses are logged once at start-up
 * (category ha-links).
 */
import type { Logger } from '../../board/common/logger.ts';
import { UdpPairLinks } from '../io/udp-pair-link.ts';
import { haFactory } from '../runtime/ha-part.ts';
import type { HaFactory } from '../runtime/ha-seam.ts';
import { HaSimulator } from '../sim/ha-simulator.ts';

/** Loopback: the members of every pair run in this process. */
export const LIVE_HA_HOST = '127.0.0.1';

/** The live shelf's HA factory (see the module header). */
export function liveHaFactory(log: Logger, host = LIVE_HA_HOST): HaFactory {
  return haFactory({
    wallClock: true,
    env: async (pairs) => {
      const links = await UdpPairLinks.open(pairs, { host, log });
      const eps = links.endpoints();
      log.info(
        { category: 'ha-links', links: eps.map((e) => ({ pair: e.pair, share: e.share, node: e.node, port: e.address.port, peer_port: e.peer.port })) },
        `HA heartbeats and session sync on UDP ${host}: ${eps.length} flows`,
      );
      return { links, faults: new HaSimulator({ mode: 'live' }) };
    },
  });
}
