/**
 * The IPMI watchdog of a ShMC's or board's IPM controller when the HA layer does not own one
 * (`atcasim start --no-ha`, a hub board, the IPMI tests): an IpmiWatchdog on the platform clock
 * that the LAN may Set and Reset (IPMI v2.0 §27.5–§27.7). When it expires it does what the
 * timeout action says to the FRU's payload (§27.6 byte 2): hard reset and power cycle → FRU
 * Control cold reset; power down → deactivation (M4 → M6 → M1); none → nothing. The expiry is
 * logged as a Watchdog 2 SEL record (sensor type 23h, offsets as Table 42-3) by the controller's
 * generator ID when the don't-log bit is clear and the controller has a watchdog sensor
 * (chassis/sensors/event-sensors.ts: the ShMCs and processor boards; a hub's expiry is not logged,
 * as its SDR has no sensor to name it). A refusal of the action (the FRU is not in M4, say) is
 * logged to the shelf's log, not thrown.
 */
import { CommandError } from '../../../board/common/errors.ts';
import type { FruConfig } from '../../config/types.ts';
import { IpmiWatchdog, TimeoutAction } from '../../model/ipmi-watchdog.ts';
import type { Shelf } from '../../model/shelf.ts';
import type { Platform } from '../../platform.ts';
import { eventSensor } from '../../sensors/event-sensors.ts';
import { generatorIdForIpmb } from '../../sensors/sel.ts';
import { SENSOR_TYPE } from '../../sensors/sensor-types.ts';
import type { WatchdogPort } from '../watchdog-port.ts';

/** The controllers with an IPMI watchdog: the ShMCs and the boards (hubs, processor boards). */
export function hasWatchdog(cfg: FruConfig): boolean {
  return cfg.kind === 'shmc' || cfg.kind === 'hub' || cfg.kind === 'processor';
}

/** A watchdog on `platform.clock` for the controller of `fru`, acting on the Shelf when it expires. */
export function controllerWatchdog(shelf: Shelf, fru: string, platform: Platform): WatchdogPort {
  const wd = new IpmiWatchdog(platform.clock);
  const cfg = shelf.fruConfig(fru);
  const log = platform.log.child({ module: 'chassis.ipmi.watchdog', fru });
  wd.onExpire((e) => {
    const sensor = eventSensor(cfg, 'watchdog');
    try {
      if (e.log && sensor) {
        shelf.sel.log({
          generatorId: generatorIdForIpmb(cfg.ipmbAddress),
          sensorType: SENSOR_TYPE.watchdog2,
          sensorNumber: sensor.number,
          eventDirType: 0x6f,
          eventData: [0xc0 | (e.sensorOffset & 0x0f), ((e.interrupt & 0x0f) << 4) | (e.use & 0x0f), 0xff],
        });
      }
      if (e.action === TimeoutAction.hardReset || e.action === TimeoutAction.powerCycle) shelf.payload.control(fru, 'cold-reset');
      else if (e.action === TimeoutAction.powerDown) shelf.hotSwap.deactivate(fru);
    } catch (err) {
      if (!(err instanceof CommandError)) throw err;
      log.warn({ category: 'watchdog', action: e.action, code: err.code }, `${fru}: watchdog expired, action refused: ${err.message}`);
    }
  });
  return { ownedByHa: false, set: (s) => wd.set(s), reset: () => wd.reset(), get: () => wd.get() };
}
