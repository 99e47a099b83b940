import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiClient, type PolicyRef, type Principal } from './api/client';
import { messageOf } from './api/errors';
import { SessionContext } from './context';
import { ExperimentPage } from './pages/experiment';
import { NewExperimentPage } from './pages/new-experiment';
import { ExperimentHistoryPage, HistoryPage } from './pages/history';
import { RevisionsPage } from './pages/revisions';
import { PoliciesPage } from './pages/policies';
import { PolicyPage } from './pages/policy';
import { ReportPage } from './pages/report';
import { SignInPage } from './pages/sign-in';
import { type Route, parseRoute, routeHref } from './router';
import { session } from './session';

const EDIT_ROLES = ['editor', 'admin'];

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function App() {
  const route = useRoute();
  const [token, setToken] = useState(session.token);
  const [principal, setPrincipal] = useState<Principal>();
  const [signInError, setSignInError] = useState<string>();

  const signOut = (reason?: string) => {
    session.signOut();
    setToken(null);
    setPrincipal(undefined);
    setSignInError(reason);
  };
  const api = useMemo(
    () =>
      token
        ? new ApiClient(token, () => signOut('Your token is no longer accepted; sign in again.'))
        : undefined,
    [token],
  );

  // A token kept from earlier in this tab is checked again before any page uses it.
  useEffect(() => {
    if (!api || principal) return;
    api.principal().then(setPrincipal, (error: unknown) => signOut(messageOf(error)));
  }, [api, principal]);

  useEffect(() => {
    document.title = `${titleOf(route)} · Policy rollout console`;
  }, [route]);

  const signedIn =
    api && principal
      ? { api, principal, canEdit: principal.roles.some((role) => EDIT_ROLES.includes(role)) }
      : null;
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="container">
        <nav aria-label="Console">
          <ul>
            <li>
              <strong>Policy rollout</strong>
            </li>
            {signedIn && (
              <li>
                <a
                  href={routeHref({
                    page: 'policies',
                    project: 'project' in route ? route.project : undefined,
                    location: route.location,
                  })}
                >
                  Policies
                </a>
              </li>
            )}
          </ul>
          {signedIn && (
            <ul>
              <li class="whoami" aria-label="Signed in as">
                <span>{signedIn.principal.name}</span>
                <small>
                  {' '}
                  {signedIn.principal.roles.join(', ')} ·{' '}
                  {signedIn.principal.allProjects
                    ? 'all projects'
                    : signedIn.principal.projects.join(', ')}
                </small>
              </li>
              <li>
                <button type="button" class="secondary outline" onClick={() => signOut()}>
                  Sign out
                </button>
              </li>
            </ul>
          )}
        </nav>
      </header>
      <main id="main" class="container" tabIndex={-1}>
        {!signedIn ? (
          token && !signInError ? (
            <p aria-busy="true">Checking your token…</p>
          ) : (
            <SignInPage
              error={signInError}
              onSignedIn={(newToken, who) => {
                session.signIn(newToken);
                setSignInError(undefined);
                setPrincipal(who);
                setToken(newToken);
              }}
            />
          )
        ) : (
          <SessionContext.Provider value={signedIn}>
            <Page route={route} />
          </SessionContext.Provider>
        )}
      </main>
    </>
  );
}

function Page({ route }: { route: Route }) {
  const key = routeHref(route);
  // Pages get plain references: a route's own `page` must not leak into the links they build.
  switch (route.page) {
    case 'policies':
      return <PoliciesPage project={route.project} location={route.location} />;
    case 'policy':
      return <PolicyPage key={key} policyRef={policyRefOf(route)} />;
    case 'new-experiment':
      return <NewExperimentPage key={key} policyRef={policyRefOf(route)} />;
    case 'experiment':
      return (
        <ExperimentPage
          key={key}
          experimentRef={{ ...policyRefOf(route), experiment: route.experiment }}
        />
      );
    case 'report':
      return (
        <ReportPage
          key={key}
          experimentRef={{ ...policyRefOf(route), experiment: route.experiment }}
        />
      );
    case 'history':
      return <HistoryPage key={key} policyRef={policyRefOf(route)} />;
    case 'revisions':
      return <RevisionsPage key={key} policyRef={policyRefOf(route)} />;
    case 'experiment-history':
      return (
        <ExperimentHistoryPage
          key={key}
          experimentRef={{ ...policyRefOf(route), experiment: route.experiment }}
        />
      );
  }
}

const policyRefOf = ({ project, location, policy }: PolicyRef): PolicyRef => ({
  project,
  location,
  policy,
});

function titleOf(route: Route): string {
  switch (route.page) {
    case 'policies':
      return 'Policies';
    case 'policy':
      return `Policy ${route.policy}`;
    case 'new-experiment':
      return `New experiment of ${route.policy}`;
    case 'experiment':
      return `Experiment ${route.experiment}`;
    case 'report':
      return `Preview report of ${route.experiment}`;
    case 'history':
      return `History of ${route.policy}`;
    case 'revisions':
      return `Revisions of ${route.policy}`;
    case 'experiment-history':
      return `History of experiment ${route.experiment}`;
  }
}
