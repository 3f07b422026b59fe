// SNMP across the shelf–ShMC bus (chassis/split/snmp-relay.ts): a view cut into snmpview parts
// that pass the bus codec and come back whole; settings and the current view to a ShMC that
// registers; notifications only to the active ShMC (counted as dropped without one); bad parts
// refused without breaking the next view.
import { describe, expect, it } from 'vitest';
import { captureLogger } from '../../../../board/common/logger.ts';
import { DEFAULT_SNMP } from '../../../../chassis/config/types.ts';
import { buildSnmpView } from '../../../../chassis/snmp/rows.ts';
import type { SnmpNotification, SnmpView } from '../../../../chassis/snmp/view.ts';
import { decodeBusMessage, encodeBusMessage, MAX_BUS_LINE, type ToShmc } from '../../../../chassis/split/bus-codec.ts';
import { SnmpBusReceiver, SnmpBusRelay, snmpViewMessages, type SnmpAgentConf } from '../../../../chassis/split/snmp-relay.ts';
import { rig } from '../../../support/shelf-fixture.ts';

const view = (): SnmpView => buildSnmpView(rig().shelf, { now: 0, fruChanged: new Map(), sensorRead: new Map() });
const conf: SnmpAgentConf = { settings: { ...DEFAULT_SNMP, communities: ['ro-community'], users: [], notify: [] }, engineId: '80007ed90511223344', bind: '127.0.0.1', port: 16161 };
const note: SnmpNotification = { kind: 'configChange', trapOid: '1.3.6.1.2.1.47.2.0.1', varbinds: [] };

function receiver() {
  const got: { conf: SnmpAgentConf[]; views: SnmpView[]; notes: SnmpNotification[] } = { conf: [], views: [], notes: [] };
  const log = captureLogger();
  const rx = new SnmpBusReceiver({ conf: (c) => got.conf.push(c), view: (v) => got.views.push(v), notify: (n) => got.notes.push(n) }, log);
  /** Through the real line codec, as the bus carries it. */
  const deliver = (m: ToShmc) => rx.onBus(decodeBusMessage(encodeBusMessage(m).trimEnd()) as ToShmc);
  return { got, deliver, log };
}

describe('SNMP over the shelf–ShMC bus', () => {
  it('a view in parts of 16 KiB, each line within MAX_BUS_LINE, reassembled equal', () => {
    const v = view();
    const parts = snmpViewMessages(v, 4096);
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.filter((p) => p.last)).toHaveLength(1);
    expect(parts.at(-1)!.last).toBe(true);
    for (const p of snmpViewMessages(v)) expect(encodeBusMessage(p).length).toBeLessThan(MAX_BUS_LINE);
    const { got, deliver } = receiver();
    for (const p of parts) deliver(p);
    expect(got.views).toEqual([v]);
  });

  it('relay: settings and the current view to each ShMC that registers, views to all, notifications to the active only', () => {
    const sent: Record<string, ToShmc[]> = { a: [], b: [], active: [] };
    let registered: ((send: (m: ToShmc) => void) => void) | undefined;
    let active = true;
    const relay = new SnmpBusRelay(
      {
        broadcast: (m) => (sent.a!.push(m), sent.b!.push(m)),
        sendToActive: (m) => (active ? (sent.active!.push(m), true) : false),
        onRegistered: (fn) => ((registered = fn), () => (registered = undefined)),
      },
      conf,
    );
    const v = view();
    relay.view(v);
    expect(sent.a!.every((m) => m.t === 'snmpview')).toBe(true);
    const late: ToShmc[] = [];
    registered!((m) => late.push(m));
    expect(late[0]).toEqual({ t: 'snmpconf', data: JSON.stringify(conf) });
    const { got, deliver } = receiver();
    for (const m of late) deliver(m);
    expect(got.conf).toEqual([conf]);
    expect(got.views).toEqual([v]);
    relay.notify(note);
    expect(sent.active!.map((m) => m.t)).toEqual(['snmptrap']);
    active = false;
    relay.notify(note);
    expect(relay.dropped).toBe(1);
    deliver(sent.active![0]!);
    expect(got.notes).toEqual([note]);
    relay.stop();
    expect(registered).toBeUndefined();
  });

  it('a broken part is refused (logged), the next view still arrives', () => {
    const { got, deliver, log } = receiver();
    deliver({ t: 'snmpview', seq: 1, last: true, data: '{"seq":1,' });
    expect(got.views).toEqual([]);
    expect(log.records.some((r) => r.msg === 'SNMP bus message refused')).toBe(true);
    const v = view();
    for (const p of snmpViewMessages(v)) deliver(p);
    expect(got.views).toEqual([v]);
  });
});
