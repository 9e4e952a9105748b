import { DAY_NAMES, WEEKDAYS, describeSchedule, scheduleProblems, type Weekday, type WeeklySchedule } from '../schedule-editor.js';

const FULL_NAMES: Readonly<Record<Weekday, string>> = { 0: 'Sunday', 1: 'Monday', 2: 'Tuesday', 3: 'Wednesday', 4: 'Thursday', 5: 'Friday', 6: 'Saturday' };

/** Weekdays and from/to times (24-hour or with AM/PM, always whole on a phone); says in words when the key works. */
export function ScheduleEditor({ value, zone, onChange, idPrefix }: { value: WeeklySchedule; zone: string; onChange: (next: WeeklySchedule) => void; idPrefix: string }) {
  const problems = scheduleProblems(value);
  const toggle = (day: Weekday, on: boolean): void => {
    const days = on ? [...value.days, day] : value.days.filter((existing) => existing !== day);
    onChange({ ...value, days: [...new Set(days)].sort((a, b) => a - b) });
  };
  return (
    <fieldset class="schedule">
      <legend>Weekly hours ({zone})</legend>
      <div class="days" role="group" aria-label="Days">
        {WEEKDAYS.map((day) => (
          <label key={day} class="day">
            <input type="checkbox" checked={value.days.includes(day)} onChange={(event) => { toggle(day, event.currentTarget.checked); }} aria-label={FULL_NAMES[day]} />
            <span aria-hidden="true">{DAY_NAMES[day]}</span>
          </label>
        ))}
      </div>
      <div class="times">
        <div class="time">
          <label for={`${idPrefix}-schedule-from`}>From</label>
          <input id={`${idPrefix}-schedule-from`} type="time" required value={value.from} onInput={(event) => { onChange({ ...value, from: event.currentTarget.value }); }} />
        </div>
        <div class="time">
          <label for={`${idPrefix}-schedule-to`}>To</label>
          <input id={`${idPrefix}-schedule-to`} type="time" required value={value.to} onInput={(event) => { onChange({ ...value, to: event.currentTarget.value }); }} />
        </div>
      </div>
      {problems.length > 0 ? (
        <p class="error" role="alert">{problems.join(' ')}</p>
      ) : (
        <p class="hint" data-testid="schedule-preview">
          Works {describeSchedule(value, zone)}.
        </p>
      )}
    </fieldset>
  );
}
