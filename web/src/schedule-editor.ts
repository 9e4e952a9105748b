/** The weekly schedule editor's model: shared with the service's invitation page (src/domain/weekly-schedule.ts). */
export * from '../../src/domain/weekly-schedule.js';
