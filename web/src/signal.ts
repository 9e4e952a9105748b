/** A lock's gateway device and its signal in words: shared with the service (src/domain/signal-words.ts). */
export { gatewayText, signalWord } from '../../src/domain/signal-words.js';
