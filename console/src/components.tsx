/** Small shared pieces: an error line, a loading hook, an action hook, a labelled field, a data table behind a chart. */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}

/**
 * Runs one operator action: clears the last outcome, shows the notice the action returns or the
 * error it throws, then calls `after` (reload the lists the action changed).
 */
export function useAction(after: () => void): { error?: unknown; notice: string; run: (action: () => Promise<string>) => Promise<void> } {
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  async function run(action: () => Promise<string>) {
    setError(undefined);
    setNotice('');
    try {
      setNotice(await action());
      after();
    } catch (caught) {
      setError(caught);
    }
  }
  return { error, notice, run };
}

/** Loads once and again on `reload()`; `deps` re-run it (filters). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): { data?: T; error?: unknown; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: unknown }>({});
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ data }),
      (error: unknown) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
    // The caller names what reloads the data (`deps`); `load` is a new closure every render.
  }, [tick, ...deps]);
  return { ...state, reload };
}

export function Field({
  label,
  hint,
  error,
  children,
  id,
}: {
  label: string;
  hint?: string;
  error?: string;
  children: ReactNode;
  id: string;
}) {
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && !error && <small id={`${id}-hint`}>{hint}</small>}
      {error && (
        <small id={`${id}-error`} className="field-error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

export function DataTable({
  caption,
  columns,
  rows,
  testId,
}: {
  caption: string;
  columns: string[];
  rows: Array<Array<string | number>>;
  testId?: string;
}) {
  return (
    <details className="data-table">
      <summary>{caption} (table)</summary>
      <div className="scroll">
        <table data-testid={testId}>
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i}>
                {row.map((cell, j) => (
                  <td key={j}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/** A modal confirmation (native <dialog>: focus trapped, Escape cancels). */
export function Confirm({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby="confirm-title"
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A secret on screen (the shown-once answer or an explicit reveal) with a copy button. */
export function SecretBox({ label, secret, note, onClose }: { label: string; secret: string; note: string; onClose: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong> {note}
      </p>
      <code data-testid="secret-value">{secret}</code>
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(secret).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" onClick={onClose}>
          Hide
        </button>
      </div>
    </div>
  );
}
