import { useState, type FormEvent } from 'react';
import { api, type Session } from '../api';
import { ErrorNote } from '../components';

export function Login({ onLogin }: { onLogin: (session: Session) => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onLogin(await api<Session>('POST', '/api/v1/auth/login', { email, password }));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="login" id="main">
      <h1>Gateway console</h1>
      <form onSubmit={(event) => void submit(event)} aria-label="Log in">
        <label htmlFor="email">Email</label>
        <input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
        <ErrorNote error={error} />
      </form>
    </main>
  );
}
