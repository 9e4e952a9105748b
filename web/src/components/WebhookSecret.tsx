import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A new webhook's secret (`whsec_…`), shown this once (no other answer of the service holds it):
 * in a read-only field to select, with `Copy secret` and a plain warning. Over plain HTTP on the
 * home network the browser offers no clipboard API: the field's text is then copied the old way,
 * and when even that fails the user is told to copy it by hand.
 */
export function WebhookSecret({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<{ ok: boolean; text: string }>();
  useEffect(() => {
    heading.current?.focus();
  }, []);

  const copy = async (): Promise<void> => {
    try {
      // A secure context only: over plain HTTP the browser has no `navigator.clipboard` at all.
      if (!('clipboard' in navigator)) throw new Error('no clipboard');
      await navigator.clipboard.writeText(secret);
      setCopied({ ok: true, text: 'Copied.' });
    } catch {
      field.current?.select();
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the only way to copy on a plain-HTTP address
      const done = document.execCommand('copy');
      setCopied(done ? { ok: true, text: 'Copied.' } : { ok: false, text: 'It could not be copied here: select the secret and copy it yourself.' });
    }
  };

  return (
    <section class="card secret" aria-labelledby="secret-heading">
      <h2 id="secret-heading" ref={heading} tabIndex={-1}>
        Webhook added: copy its secret now
      </h2>
      <p>
        Your receiver at <span class="url">{url}</span> checks each delivery’s signature with this secret.
      </p>
      <p class="warning" id="secret-warning">
        It will not be shown again. If you lose it, delete the webhook and add it again.
      </p>
      <label for="webhook-secret">Secret</label>
      <input id="webhook-secret" ref={field} type="text" readOnly value={secret} aria-describedby="secret-warning" class="secret-value" onFocus={(event) => { event.currentTarget.select(); }} />
      <div class="actions">
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy secret
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <p class="form-outcome" role="status">
        {copied?.ok === true ? copied.text : ''}
      </p>
      <p class="error" role="alert">
        {copied?.ok === false ? copied.text : ''}
      </p>
    </section>
  );
}
