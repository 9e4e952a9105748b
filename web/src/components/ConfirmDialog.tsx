import { useEffect, useRef } from 'preact/hooks';

/**
 * Asks before something that cannot be taken back (docs/design.md §7: revoke and delete ask to
 * confirm): a modal `dialog` named by its question, with the buttons `Cancel` and the action.
 * Escape cancels; focus starts on Cancel and returns to the button that opened it.
 */
export function ConfirmDialog({ title, text, action, onClose }: { title: string; text: string; action: string; onClose: (confirmed: boolean) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const element = dialog.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    if (!element) return undefined;
    element.showModal();
    cancel.current?.focus();
    return () => {
      if (element.open) element.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-text"
      onCancel={(event) => {
        event.preventDefault();
        onClose(false);
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      <p id="confirm-text">{text}</p>
      <div class="actions">
        <button type="button" ref={cancel} onClick={() => { onClose(false); }}>
          Cancel
        </button>
        <button type="button" class="danger-solid" onClick={() => { onClose(true); }}>
          {action}
        </button>
      </div>
    </dialog>
  );
}
