/** The platform alias users put in config.json (and config.schema.json's pluginAlias). */
export const PLATFORM_NAME = 'EKeyLocks';
/** The npm package name, which Homebridge uses as the plugin identifier. */
export const PLUGIN_NAME = 'homebridge-ekey-locks';
