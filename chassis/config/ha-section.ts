/**
 * The `ha` section of the shelf YAML → HA timings (heartbeats, watchdog, reset and boot times,
 * session sync) and the redundant pairs (the ShMC pair, processor-board buddies).
 *
 * Sources: research/ha.md §5 (roles and timings), IPMI v2.0 §27 (watchdog timeout and pretimeout).
 */
import { DEFAULT_HA, type HaConfig, type PairConfig } from './ha.ts';
import type { FruConfig } from './types.ts';
import type { Value, YamlSource } from './yaml-reader.ts';

/**
 * Reads the `ha` section: timings (defaults DEFAULT_HA) and the pairs — given, or by default the
 * two ShMCs and the processor boards two by two in slot order (lb1, lb2, …).
 * @param frus the shelf's FRUs (pair members must be shelf managers or processor boards of them)
 * @throws ConfigError at the offending key (unknown or mixed members, a FRU in two pairs, a
 *   pretimeout not shorter than the watchdog timeout)
 */
export function readHa(v: Value | undefined, frus: FruConfig[], src: YamlSource): { timing: HaConfig; pairs: PairConfig[] } {
  const timing: HaConfig = { ...DEFAULT_HA };
  const m = v?.map();
  if (m) {
    const d = (k: string, cur: number, min = 1) => m.opt(k)?.duration({ min }) ?? cur;
    timing.heartbeatMs = d('heartbeat', timing.heartbeatMs);
    timing.missedHeartbeats = m.opt('missed_heartbeats')?.int({ min: 1, max: 100 }) ?? timing.missedHeartbeats;
    timing.watchdogTimeoutMs = d('watchdog_timeout', timing.watchdogTimeoutMs, 100);
    timing.watchdogPretimeoutMs = d('watchdog_pretimeout', timing.watchdogPretimeoutMs, 0);
    timing.watchdogKickMs = m.opt('watchdog_kick')?.duration({ min: 1 }) ?? timing.heartbeatMs;
    timing.resetMs = d('reset_time', timing.resetMs, 0);
    timing.bootMs = d('boot_time', timing.bootMs, 0);
    timing.syncMinAgeMs = d('sync_min_age', timing.syncMinAgeMs, 0);
    timing.syncBatchMs = d('sync_batch', timing.syncBatchMs);
    timing.syncMtu = m.opt('sync_mtu')?.int({ min: 576, max: 65535 }) ?? timing.syncMtu;
    timing.syncFullResyncMs = d('sync_full_resync', timing.syncFullResyncMs);
    timing.globalStallMs = d('global_stall', timing.globalStallMs);
    if (timing.watchdogPretimeoutMs >= timing.watchdogTimeoutMs && timing.watchdogPretimeoutMs > 0) {
      m.req('watchdog_pretimeout').fail('must be shorter than watchdog_timeout');
    }
  }
  const byName = new Map(frus.map((f) => [f.name, f]));
  const pairs: PairConfig[] = [];
  const pV = m?.opt('pairs');
  if (pV) {
    const pm = pV.map();
    const inPair = new Map<string, string>();
    for (const [name, item, keyNode] of pm.entries()) {
      if (!/^[a-z][a-z0-9_-]{0,31}$/.test(name)) src.fail(keyNode, `ha.pairs: "${name}" is not a pair name (lower-case letters, digits, - and _)`);
      const im = item.map();
      const membersV = im.req('members');
      const items = membersV.list();
      if (items.length !== 2) membersV.fail('a pair has exactly two members');
      const members = items.map((x) => x.str()) as [string, string];
      if (members[0] === members[1]) items[1]!.fail('the two members must differ');
      const kinds = members.map((mm, i) => {
        const f = byName.get(mm);
        const item: Value = items[i]!;
        if (!f) return item.fail(`"${mm}" is not a shelf manager or board of this shelf`);
        if (f.kind !== 'shmc' && f.kind !== 'processor') item.fail(`${mm} is a ${f.kind}; pairs are made of shelf managers or processor boards`);
        const other = inPair.get(mm);
        if (other) item.fail(`${mm} is already a member of pair ${other}`);
        inPair.set(mm, name);
        return f.kind;
      });
      if (kinds[0] !== kinds[1]) membersV.fail('both members must be shelf managers or both processor boards');
      const kind = kinds[0] === 'shmc' ? 'shmc' : 'processor';
      const kindV = im.opt('kind');
      if (kindV && kindV.oneOf(['shmc', 'processor'] as const) !== kind) kindV.fail(`the members make this a ${kind} pair`);
      im.done(['members', 'kind']);
      pairs.push({ name, kind, members });
    }
  } else {
    const shmcs = frus.filter((f) => f.kind === 'shmc');
    if (shmcs.length === 2) pairs.push({ name: 'shmc', kind: 'shmc', members: [shmcs[0]!.name, shmcs[1]!.name] });
    const procs = frus.filter((f) => f.kind === 'processor');
    for (let i = 0; i + 1 < procs.length; i += 2) {
      pairs.push({ name: `lb${i / 2 + 1}`, kind: 'processor', members: [procs[i]!.name, procs[i + 1]!.name] });
    }
  }
  m?.done([
    'heartbeat',
    'missed_heartbeats',
    'watchdog_timeout',
    'watchdog_pretimeout',
    'watchdog_kick',
    'reset_time',
    'boot_time',
    'sync_min_age',
    'sync_batch',
    'sync_mtu',
    'sync_full_resync',
    'global_stall',
    'pairs',
  ]);
  return { timing, pairs };
}

