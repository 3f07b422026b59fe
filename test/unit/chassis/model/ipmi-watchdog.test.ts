import { describe, expect, it } from 'vitest';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { DecodeError } from '../../../../board/common/errors.ts';
import {
  IpmiWatchdog, WatchdogCc, WatchdogCmd, decodeGetWatchdogResponse, decodeSetWatchdog, encodeGetWatchdogResponse,
  encodeSetWatchdog, firmwareWatchdogSettings,
} from '../../../../chassis/model/ipmi-watchdog.ts';
import type { WatchdogEvent, WatchdogSettings } from '../../../../chassis/model/ipmi-watchdog.ts';

// Set Watchdog Timer request bytes (IPMI v2.0 §27.6), annotated per field.
const SET_SMS_HARDRESET_10S = Uint8Array.of(
  0x44, // timer use: b6 don't stop, b2:0 = 4 SMS/OS
  0x31, // actions: b6:4 = 3 messaging pre-timeout interrupt, b2:0 = 1 hard reset
  0x02, // pre-timeout interval 2 s
  0x10, // clear the SMS/OS expiration flag
  0x64, // initial countdown LSB: 100 × 100 ms = 10 s
  0x00, // MSB
);

function setup() {
  const clock = new SimClock();
  const wd = new IpmiWatchdog(clock);
  const events: WatchdogEvent[] = [];
  wd.onPretimeout((e) => events.push(e));
  wd.onExpire((e) => events.push(e));
  return { clock, wd, events };
}

describe('IPMI watchdog (IPMI v2.0 §27.5–27.7)', () => {
  it('answers Get before any Set with all-zero fields, as ipmi_sim does (../shared golden 05)', () => {
    const { wd } = setup();
    const r = wd.handle(WatchdogCmd.get, new Uint8Array(0));
    expect(r.cc).toBe(0);
    expect([...r.data]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('Reset before Set answers 80h (attempt to start un-initialized watchdog)', () => {
    const { wd } = setup();
    expect(wd.reset()).toBe('uninitialized');
    expect(wd.handle(WatchdogCmd.reset, new Uint8Array(0)).cc).toBe(0x80);
    expect(wd.kick()).toBe('uninitialized');
    expect(wd.get().running).toBe(false);
  });

  it('Set then Get returns the 8 bytes with the countdown in 100 ms units, present countdown ticking', () => {
    const { clock, wd } = setup();
    expect(wd.handle(WatchdogCmd.set, SET_SMS_HARDRESET_10S).cc).toBe(0);
    // Set does not start a stopped timer.
    expect([...wd.handle(WatchdogCmd.get, new Uint8Array(0)).data]).toEqual([0x04, 0x31, 0x02, 0x00, 0x64, 0x00, 0x00, 0x00]);
    expect(wd.handle(WatchdogCmd.reset, new Uint8Array(0)).cc).toBe(0);
    expect([...wd.handle(WatchdogCmd.get, new Uint8Array(0)).data]).toEqual([0x44, 0x31, 0x02, 0x00, 0x64, 0x00, 0x64, 0x00]);
    clock.advance(2550); // 7.45 s left → 75 units (rounded up)
    const g = wd.handle(WatchdogCmd.get, new Uint8Array(0)).data;
    expect(g[6]! | (g[7]! << 8)).toBe(75);
    expect(decodeGetWatchdogResponse(g).present).toBe(75);
    clock.advance(50); // exactly 7.4 s left
    expect(wd.get().present).toBe(74);
  });

  it('fires the pre-timeout at countdown − interval and then expires: flag for the timer use, stopped, action reported', () => {
    const { clock, wd, events } = setup();
    wd.set(decodeSetWatchdog(SET_SMS_HARDRESET_10S) as WatchdogSettings);
    wd.reset();
    clock.advance(7999);
    expect(events).toEqual([]);
    clock.advance(1);
    expect(events.map((e) => [e.kind, e.at, e.sensorOffset])).toEqual([['pretimeout', 8000, 8]]);
    clock.advance(1999);
    expect(events).toHaveLength(1);
    clock.advance(1);
    expect(events.map((e) => [e.kind, e.at])).toEqual([['pretimeout', 8000], ['expired', 10000]]);
    const exp = events[1]!;
    expect(exp.action).toBe(1);
    expect(exp.sensorOffset).toBe(1); // Watchdog 2 offset 1: hard reset
    expect(exp.log).toBe(true);
    const st = wd.get();
    expect(st.running).toBe(false);
    expect(st.expirationFlags).toBe(0x10); // bit 4: SMS/OS
    expect(st.present).toBe(0);
    expect(wd.expiries).toBe(1);
  });

  it('keeps the expiration flag until a Set clears it (write 1 to clear)', () => {
    const { clock, wd } = setup();
    const s = { ...firmwareWatchdogSettings(500), use: 3 }; // OS Load
    wd.set(s);
    wd.reset();
    clock.advance(500);
    expect(wd.get().expirationFlags).toBe(0x08);
    wd.set({ ...s, clearFlags: 0x10 }); // clearing another use's flag leaves ours
    expect(wd.get().expirationFlags).toBe(0x08);
    wd.set({ ...s, clearFlags: 0x08 });
    expect(wd.get().expirationFlags).toBe(0);
  });

  it('kicks postpone expiry; a starved watchdog expires one countdown after the last kick', () => {
    const { clock, wd, events } = setup();
    wd.set(firmwareWatchdogSettings(1000));
    wd.kick();
    for (let i = 0; i < 20; i++) {
      clock.advance(100);
      wd.kick();
    }
    expect(events).toEqual([]);
    const last = clock.now();
    clock.advance(999);
    expect(events).toEqual([]);
    clock.advance(1);
    expect(events[0]!.at).toBe(last + 1000);
  });

  it("don't-stop clear: Set stops a running timer; don't-stop set: it keeps running with the new countdown", () => {
    const { clock, wd, events } = setup();
    const s = firmwareWatchdogSettings(1000); // dontStop true
    wd.set(s);
    wd.reset();
    clock.advance(400);
    wd.set({ ...s, countdown: 20 }); // don't stop: restarts with 2 s
    expect(wd.get().running).toBe(true);
    expect(wd.get().present).toBe(20);
    clock.advance(1999);
    expect(events).toEqual([]);
    clock.advance(1);
    expect(events.map((e) => e.kind)).toEqual(['expired']);
    wd.reset();
    clock.advance(500);
    wd.set({ ...s, dontStop: false });
    expect(wd.get().running).toBe(false);
    clock.advance(5000);
    expect(events).toHaveLength(1);
  });

  it('action none still expires, sets the flag and logs (spec semantics, not ipmi_sim\'s stop)', () => {
    const { clock, wd, events } = setup();
    wd.set({ ...firmwareWatchdogSettings(300), timeoutAction: 0 });
    expect(wd.reset()).toBe('ok');
    clock.advance(300);
    expect(events.map((e) => [e.kind, e.action, e.sensorOffset])).toEqual([['expired', 0, 0]]);
    expect(wd.get().expirationFlags).toBe(0x10);
  });

  it("don't-log set: the expiry event says not to log it", () => {
    const { clock, wd, events } = setup();
    wd.set({ ...firmwareWatchdogSettings(100), dontLog: true });
    wd.reset();
    clock.advance(100);
    expect(events[0]!.log).toBe(false);
    expect(encodeGetWatchdogResponse(wd.get())[0]! & 0x80).toBe(0x80);
  });

  it('rejects bad Set requests with CCh (reserved bits and values, pre-timeout not shorter than the countdown) or C7h (length), changing nothing', () => {
    const { wd } = setup();
    const bad: Array<[number[], number]> = [
      [[0x4c, 0x01, 0, 0, 10, 0], WatchdogCc.invalidField], // timer use reserved bit 3
      [[0x40, 0x01, 0, 0, 10, 0], WatchdogCc.invalidField], // use 0 reserved
      [[0x46, 0x01, 0, 0, 10, 0], WatchdogCc.invalidField], // use 6 reserved
      [[0x44, 0x81, 0, 0, 10, 0], WatchdogCc.invalidField], // actions b7 reserved
      [[0x44, 0x09, 0, 0, 10, 0], WatchdogCc.invalidField], // actions b3 reserved
      [[0x44, 0x04, 0, 0, 10, 0], WatchdogCc.invalidField], // timeout action 4 reserved
      [[0x44, 0x41, 0, 0, 10, 0], WatchdogCc.invalidField], // pre-timeout interrupt 4 reserved
      [[0x44, 0x01, 0, 0x01, 10, 0], WatchdogCc.invalidField], // flags bit 0 reserved
      [[0x44, 0x31, 1, 0, 10, 0], WatchdogCc.invalidField], // pre-timeout 1 s, countdown 1 s
      [[0x44, 0x31, 2, 0, 10, 0], WatchdogCc.invalidField], // pre-timeout 2 s > countdown
      [[0x44, 0x01, 0, 0, 10], WatchdogCc.invalidLength],
      [[0x44, 0x01, 0, 0, 10, 0, 0], WatchdogCc.invalidLength],
    ];
    for (const [bytes, cc] of bad) expect(wd.handle(WatchdogCmd.set, Uint8Array.from(bytes)).cc, bytes.join(',')).toBe(cc);
    expect(wd.isInitialized).toBe(false);
    expect(wd.handle(WatchdogCmd.reset, new Uint8Array(0)).cc).toBe(0x80);
    // A valid pre-timeout shorter than the countdown is accepted.
    expect(wd.handle(WatchdogCmd.set, Uint8Array.of(0x44, 0x31, 1, 0, 11, 0)).cc).toBe(0);
    expect(wd.handle(WatchdogCmd.get, Uint8Array.of(1)).cc).toBe(WatchdogCc.invalidLength);
    expect(wd.handle(WatchdogCmd.reset, Uint8Array.of(1)).cc).toBe(WatchdogCc.invalidLength);
    expect(wd.handle(0x26, new Uint8Array(0)).cc).toBe(0xc1);
  });

  it('round-trips the Set request and the Get response codecs', () => {
    const s = decodeSetWatchdog(SET_SMS_HARDRESET_10S) as WatchdogSettings;
    expect(s).toEqual({ dontLog: false, dontStop: true, use: 4, pretimeoutInterrupt: 3, timeoutAction: 1, pretimeoutSec: 2, clearFlags: 0x10, countdown: 100 });
    expect([...encodeSetWatchdog(s)]).toEqual([...SET_SMS_HARDRESET_10S]);
    // ipmitool's "mc watchdog off": SMS/OS, action none, don't-stop clear, countdown 0x0BB8 (300 s).
    const off = decodeSetWatchdog(Uint8Array.of(0x04, 0x00, 0x00, 0x00, 0xb8, 0x0b)) as WatchdogSettings;
    expect(off.countdown).toBe(3000);
    expect(off.dontStop).toBe(false);
    const st = { use: 5, dontLog: true, running: true, pretimeoutInterrupt: 2, timeoutAction: 3, pretimeoutSec: 9, expirationFlags: 0x22, countdown: 0x1234, present: 0x0102 };
    expect(decodeGetWatchdogResponse(encodeGetWatchdogResponse(st))).toEqual(st);
    expect(() => decodeGetWatchdogResponse(Uint8Array.of(1, 2, 3))).toThrow(DecodeError);
    expect(() => encodeSetWatchdog({ ...s, countdown: 70000 })).toThrow(RangeError);
  });

  it('programs the firmware settings from HaConfig: SMS/OS, hard reset, countdown rounded up to 100 ms', () => {
    expect(firmwareWatchdogSettings(1000)).toMatchObject({ use: 4, timeoutAction: 1, countdown: 10, pretimeoutInterrupt: 0 });
    expect(firmwareWatchdogSettings(2050, 1000)).toMatchObject({ countdown: 21, pretimeoutInterrupt: 3, pretimeoutSec: 1 });
  });

  it('stop() halts the countdown (payload power lost) without losing the settings', () => {
    const { clock, wd, events } = setup();
    wd.set(firmwareWatchdogSettings(1000));
    wd.reset();
    wd.stop();
    clock.advance(5000);
    expect(events).toEqual([]);
    expect(wd.reset()).toBe('ok');
    expect(wd.remainingMs()).toBe(1000);
  });
});
