import type { DoorCode } from '../api.js';
import { HOLDER_ONLY_TEXT, SERVICE_ENFORCED_TEXT, digitsKeptFromOthers, doorCodeStateText, holderDoorCodeText } from '../door-code-text.js';

/**
 * A key's door code (docs/design.md §7: the accessible name `Door code`, with its digits): for the
 * holder, the code and when it works; for owners and admins, the code and its state on the lock —
 * the digits of an owner's or admin's key only to its holder (docs/design.md §4c), so their row
 * says where the code stands and that only its holder sees it.
 */
export function DoorCodeInfo({ doorCode, zone, idPrefix, worksText, forHolder }: { doorCode: DoorCode; zone: string; idPrefix: string; worksText?: string; forHolder: boolean }) {
  const labelId = `${idPrefix}-door-code-label`;
  const digitsId = `${idPrefix}-door-code-digits`;
  const state = forHolder ? holderDoorCodeText(doorCode) : doorCodeStateText(doorCode, zone);
  return (
    <div class={`door-code door-code-${doorCode.state}`} role="group" aria-labelledby={doorCode.code === null ? labelId : `${labelId} ${digitsId}`}>
      <p>
        <span id={labelId}>Door code</span>{' '}
        {doorCode.code === null ? <span class="muted">{state}</span> : <strong id={digitsId} class="code">{doorCode.code}</strong>}
      </p>
      {worksText !== undefined && doorCode.code !== null && <p class="hint">{worksText}</p>}
      {doorCode.code !== null && <p class={doorCode.state === 'failed' ? 'hint door-code-failed' : 'hint'}>{state}</p>}
      {doorCode.code !== null && doorCode.enforced_by === 'service' && <p class="hint">{SERVICE_ENFORCED_TEXT}</p>}
      {doorCode.code === null && !forHolder && digitsKeptFromOthers(doorCode) && <p class="hint">{HOLDER_ONLY_TEXT}</p>}
    </div>
  );
}
