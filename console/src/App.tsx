/** The console shell: session (login, CSRF token after a reload), navigation, the page for the route. */
import { useEffect, useState, type ReactNode } from 'react';
import { api, get, setCsrfToken, type Session } from './api';
import { useRoute } from './route';
import { Login } from './pages/Login';
import { Overview } from './pages/Overview';
import { Keys } from './pages/Keys';
import { Usage } from './pages/Usage';
import { Requests } from './pages/Requests';
import { Billing } from './pages/Billing';
import { Models } from './pages/Models';
import { Playground } from './pages/Playground';
import { DialTest } from './pages/DialTest';
import { Tasks } from './pages/Tasks';
import { Alerts } from './pages/Alerts';
import { OperatorAccounts } from './pages/OperatorAccounts';
import { OperatorUpstreams } from './pages/OperatorUpstreams';
import { OperatorCatalog } from './pages/OperatorCatalog';
import { AuditLog } from './pages/AuditLog';

const PAGES: Array<{ path: string; title: string; render: () => ReactNode; operator?: boolean }> = [
  { path: '/overview', title: 'Overview', render: () => <Overview /> },
  { path: '/keys', title: 'Keys', render: () => <Keys /> },
  { path: '/usage', title: 'Usage', render: () => <Usage /> },
  { path: '/requests', title: 'Requests', render: () => <Requests /> },
  { path: '/billing', title: 'Billing', render: () => <Billing /> },
  { path: '/models', title: 'Models', render: () => <Models /> },
  { path: '/playground', title: 'Playground', render: () => <Playground /> },
  { path: '/dial', title: 'Dial test', render: () => <DialTest /> },
  { path: '/tasks', title: 'Tasks', render: () => <Tasks /> },
  { path: '/alerts', title: 'Alerts', render: () => <Alerts /> },
  { path: '/activity', title: 'Activity', render: () => <AuditLog /> },
  { path: '/operator/accounts', title: 'Accounts', render: () => <OperatorAccounts />, operator: true },
  { path: '/operator/upstreams', title: 'Routing', render: () => <OperatorUpstreams />, operator: true },
  { path: '/operator/catalog', title: 'Catalog', render: () => <OperatorCatalog />, operator: true },
  { path: '/operator/audit', title: 'Audit log', render: () => <AuditLog operator />, operator: true },
  { path: '/operator/requests', title: 'All requests', render: () => <Requests operator />, operator: true },
];

type State = { status: 'loading' } | { status: 'anonymous' } | { status: 'in'; session: Session; operator: boolean };

export function App() {
  const [state, setState] = useState<State>({ status: 'loading' });
  const route = useRoute();

  async function enter(session: Session) {
    setCsrfToken(session.csrf_token);
    const operator = await get('/api/v1/operator/me').then(
      () => true,
      () => false,
    );
    setState({ status: 'in', session, operator });
  }

  useEffect(() => {
    get<Session>('/api/v1/auth/session').then(enter, () => setState({ status: 'anonymous' }));
  }, []);

  if (state.status === 'loading')
    return (
      <p className="loading" role="status">
        Loading…
      </p>
    );
  if (state.status === 'anonymous') return <Login onLogin={enter} />;

  const visible = PAGES.filter((page) => !page.operator || state.operator);
  const page = visible.find((candidate) => candidate.path === route) ?? visible[0];
  async function logout() {
    await api('POST', '/api/v1/auth/logout').catch(() => undefined);
    setState({ status: 'anonymous' });
  }

  return (
    <div className="shell">
      <a
        className="skip"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Gateway console</span>
        <span className="who">
          {state.session.user.email}
          {state.operator ? ' · operator' : ''}
        </span>
        <button type="button" className="link" onClick={() => void logout()}>
          Log out
        </button>
      </header>
      <nav aria-label="Console pages" className="nav">
        <ul>
          {visible
            .filter((p) => !p.operator)
            .map((p) => (
              <NavLink key={p.path} path={p.path} title={p.title} current={p === page} />
            ))}
        </ul>
        {state.operator && (
          <>
            <p className="nav-heading">Operator</p>
            <ul>
              {visible
                .filter((p) => p.operator)
                .map((p) => (
                  <NavLink key={p.path} path={p.path} title={p.title} current={p === page} />
                ))}
            </ul>
          </>
        )}
      </nav>
      <main id="main" tabIndex={-1} className="main">
        <SimulatorNotice session={state.session} operator={state.operator} />
        <h1>{page.title}</h1>
        {page.render()}
      </main>
    </div>
  );
}

function NavLink({ path, title, current }: { path: string; title: string; current: boolean }) {
  return (
    <li>
      <a href={`#${path}`} aria-current={current ? 'page' : undefined}>
        {title}
      </a>
    </li>
  );
}

/** Says so when answers come from the provider simulator (the quick start's upstreams), not from real models. */
function SimulatorNotice({ session, operator }: { session: Session; operator: boolean }) {
  const upstreams = session.upstreams;
  if (!upstreams || upstreams.simulated === 0) return null;
  const all = upstreams.simulated === upstreams.active;
  return (
    <p className="notice simulator-notice" role="note" data-testid="simulator-notice">
      {all
        ? 'The upstreams are the provider simulator: '
        : `${upstreams.simulated} of ${upstreams.active} upstream accounts are the provider simulator: `}
      answers are simulated, not from real models.
      {operator ? ' Connect a provider account under Routing (or npm run admin -- upstream add --provider …).' : ''}
    </p>
  );
}
