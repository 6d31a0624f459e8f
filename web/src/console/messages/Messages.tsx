import { AccountBar, useSettingsAccount } from './account';
import { MessageLog } from './MessageLog';
import { MessageSettings } from './MessageSettings';
import { MessageTemplates } from './MessageTemplates';

const TABS = [
  { path: 'messages', label: 'Settings' },
  { path: 'messages/templates', label: 'Templates' },
  { path: 'messages/log', label: 'Message log' },
];

/**
 * Customer messages (DESIGN §14), per merchant account: `#/messages` (triggers × channels, quiet
 * hours, sender, providers), `#/messages/templates` (per locale, with preview and SMS segments),
 * `#/messages/log` (every message with its status). Carrier roles pick the merchant; a merchant
 * user works on its own.
 */
export default function Messages({ sub }: { sub?: string }) {
  const { carrier, account, setAccount } = useSettingsAccount();
  const here = sub ? `messages/${sub}` : 'messages';
  const suffix = account ? `?account=${encodeURIComponent(account)}` : '';
  const isLog = sub === 'log';
  return (
    <section aria-labelledby="messages-title">
      <h1 id="messages-title">Customer messages</h1>
      <nav aria-label="Customer messages" className="tabs">
        <ul className="tab-list">
          {TABS.map((t) => (
            <li key={t.path}>
              <a className="tab-link" href={`#/${t.path}${suffix}`} aria-current={t.path === here ? 'page' : undefined}>
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <AccountBar
        id="messages-account"
        carrier={carrier}
        account={account}
        setAccount={setAccount}
        emptyMeans={isLog ? 'All accounts' : 'Carrier defaults'}
      />
      {sub === 'templates' ? (
        <MessageTemplates key={account} account={account} />
      ) : isLog ? (
        <MessageLog key={account} account={account} carrier={carrier} />
      ) : (
        <MessageSettings key={account} account={account} />
      )}
    </section>
  );
}
