// Child process of the SIGKILL test: opens a shelf on an SQLite database, deactivates slot3
// (handle open → M5 → M6 → M1, in simulated time), then logs SEL events forever, printing an
// acknowledgement line after each command returned (i.e. after its transaction committed).
// The parent kills it with SIGKILL at a random moment and checks what survived.
import { SimClock } from '../../../board/common/sim-clock.ts';
import { SeededRandom } from '../../../board/common/random.ts';
import { nullLogger } from '../../../board/common/logger.ts';
import { loadDefaultShelf } from '../../../chassis/io/data-dir.ts';
import { SqliteStore } from '../../../chassis/io/sqlite-store.ts';
import { Shelf } from '../../../chassis/model/shelf.ts';
import { seededCryptoRandom } from '../../../chassis/platform.ts';

const file = process.argv[2]!;
const store = SqliteStore.open(file);
const clock = new SimClock();
const shelf = Shelf.open({ config: loadDefaultShelf(), platform: { clock, log: nullLogger, random: new SeededRandom(1), cryptoRandom: seededCryptoRandom(new SeededRandom(1)) }, store });
const out = (s: string) => process.stdout.write(`${s}\n`);
shelf.hotSwap.openHandle('slot3');
clock.advance(5000);
out(`ack state slot3 ${shelf.state('slot3')}`);
let n = 0;
const tick = () => {
  if (n >= 3000) return; // stay below the SEL capacity; the parent kills us long before
  for (let i = 0; i < 20; i++) {
    const r = shelf.sel.log({ generatorId: 0x86, sensorType: 0x01, sensorNumber: 1, eventDirType: 0x01, eventData: [0x57, n & 0xff, 0x46] });
    out(`ack sel ${r!.recordId}`);
    n++;
  }
  setImmediate(tick);
};
tick();
