/**
 * Files shipped with the package that a run uses: the bundled capture (chassis/assets/README.md:
 * the first 20,000 packets of the project's own loopback capture, real traffic, no third-party
 * or GPL data). Its name in reports, the TUI title and scenarios is `bundled`.
 */
import { fileURLToPath } from 'node:url';

/** Absolute path of the bundled capture. */
export const BUNDLED_CAPTURE_PATH: string = fileURLToPath(new URL('../assets/loopback-mix-20k.pcap', import.meta.url));

/** Name of the bundled capture in reports. */
export const BUNDLED_CAPTURE_NAME = 'bundled';
