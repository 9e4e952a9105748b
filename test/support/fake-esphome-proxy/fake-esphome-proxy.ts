/**
 * The fake ESPHome Bluetooth proxy of the tests: ESPHome's native API (plaintext and Noise) over
 * real TCP on loopback, relaying to the project's simulated devices. Its code lives with the
 * benchmarks (src/bench/fake-esphome-proxy/), which run it from the build for
 * `command-roundtrip-proxy` (docs/design.md §8); the tests import it from here. See README.md.
 */
export { FakeEsphomeProxy, type FakeProxyLog, type FakeProxyOptions } from '../../../src/bench/fake-esphome-proxy/fake-esphome-proxy.js';
