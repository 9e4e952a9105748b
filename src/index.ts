import type { API } from 'homebridge';
import { EKeyLocksPlatform } from './homebridge/ekey-locks-platform.js';
import { PLATFORM_NAME } from './homebridge/platform-name.js';

/** Homebridge entry point: registers the `EKeyLocks` dynamic platform. */
export default (api: API): void => {
  api.registerPlatform(PLATFORM_NAME, EKeyLocksPlatform);
};
