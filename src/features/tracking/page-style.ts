/**
 * The tracking page's own stylesheet, inline under a hash in the CSP (one request less on a slow
 * phone). The brand colour, when set, overrides --accent in a second style block (page.ts).
 */
export const CSS = `:root{--bg:#f3f4f6;--card:#fff;--fg:#111827;--muted:#4b5563;--line:#d1d5db;--accent:#0f766e;--on-accent:#fff;--ring:#99f6e4;--warn:#b45309;--warn-bg:#fffbeb;--test:#7c2d12;--test-bg:#ffedd5}
@media (prefers-color-scheme:dark){:root{--bg:#0b1120;--card:#111827;--fg:#f9fafb;--muted:#9ca3af;--line:#374151;--accent:#2dd4bf;--on-accent:#042f2e;--ring:#134e4a;--warn:#fbbf24;--warn-bg:#292524;--test:#fed7aa;--test-bg:#431407}}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:34rem;margin:0 auto;padding:1rem 1rem 2rem}
.testmode{margin:0 0 1rem;padding:.5rem .75rem;border-radius:.5rem;background:var(--test-bg);color:var(--test);font-size:.875rem;font-weight:600;text-align:center}
.brand{display:flex;align-items:center;gap:.5rem;margin:.25rem 0 1rem;color:var(--muted);font-size:.875rem}
.brand strong{color:var(--on-brand,var(--fg));font-size:1rem}
.brand{padding:.5rem .75rem;border-radius:.75rem;background:var(--brand,transparent);color:var(--on-brand,var(--muted))}
.card{background:var(--card);border-radius:1rem;padding:1.25rem;box-shadow:0 1px 2px rgba(0,0,0,.06),0 4px 16px rgba(0,0,0,.05);margin-bottom:1rem}
h1{margin:.125rem 0 .5rem;font-size:1.5rem;line-height:1.25}
h2{margin:0 0 .75rem;font-size:1rem}
.lead{margin:0;color:var(--muted)}
.lead+.lead{margin-top:.75rem}
.eta{display:flex;align-items:baseline;gap:.5rem;margin:1rem 0 0;padding:.75rem 1rem;border-radius:.75rem;background:var(--bg)}
.eta b{font-size:1.25rem;color:var(--accent)}
#requested b{font-size:1.0625rem}
.steps{display:flex;list-style:none;margin:1.5rem 0 .25rem;padding:0}
.steps li{flex:1;position:relative;padding:1.75rem .125rem 0;text-align:center;font-size:.75rem;line-height:1.25;color:var(--muted)}
@media (max-width:25rem){.steps li{font-size:.6875rem}}
.steps li::before{content:"";position:absolute;z-index:1;top:0;left:50%;width:1.25rem;height:1.25rem;margin-left:-.625rem;border:2px solid var(--line);border-radius:50%;background:var(--card);color:var(--on-accent);font-size:.75rem;line-height:1rem;text-align:center}
.steps li::after{content:"";position:absolute;top:.5625rem;left:-50%;width:100%;height:2px;background:var(--line)}
.steps li:first-child::after{display:none}
.steps li.done::before{content:"\\2713";border-color:var(--accent);background:var(--accent)}
.steps li.done::after,.steps li.current::after{background:var(--accent)}
.steps li.current{color:var(--fg);font-weight:600}
.steps li.current::before{border-color:var(--accent);box-shadow:0 0 0 4px var(--ring)}
.steps.problem li.current::before{border-color:var(--warn);background:var(--warn);box-shadow:none}
.notice{margin:1rem 0 0;padding:.75rem 1rem;border-left:4px solid var(--warn);border-radius:.25rem;background:var(--warn-bg)}
.courier{display:flex;gap:.75rem;align-items:center}
.courier svg{flex:none}
.courier p{margin:0}
.small{font-size:.875rem;color:var(--muted)}
a{color:var(--accent)}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0}
dt{color:var(--muted)}
dd{margin:0;overflow-wrap:anywhere}
.code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.05em}
.history{list-style:none;margin:0;padding:0}
.history li{position:relative;padding:0 0 .875rem 1.25rem;border-left:2px solid var(--line);margin-left:.375rem}
.history li:last-child{border-left-color:transparent;padding-bottom:0}
.history li::before{content:"";position:absolute;left:-.4375rem;top:.3rem;width:.75rem;height:.75rem;border-radius:50%;background:var(--line)}
.history li:first-child::before{background:var(--accent)}
.history time{display:block;font-size:.875rem;color:var(--muted)}
footer{text-align:center;font-size:.8125rem;color:var(--muted)}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.brand img{width:2.5rem;height:2.5rem;object-fit:contain;border-radius:.5rem;background:#fff}
.stops{margin:.5rem 0 0;font-weight:600}
.zone{display:block;font-size:.8125rem;color:var(--muted)}
#map{height:16rem;border-radius:.75rem;background:var(--bg);overflow:hidden}
.map-note{margin:.5rem 0 0}
form{display:grid;gap:.5rem}
label{font-weight:600}
textarea,input[type=text]{width:100%;font:inherit;padding:.5rem .625rem;border:1px solid var(--muted);border-radius:.5rem;background:var(--card);color:var(--fg)}
textarea{min-height:4.5rem}
button{justify-self:start;font:inherit;font-weight:600;padding:.625rem 1rem;min-height:2.75rem;border:0;border-radius:.5rem;background:var(--brand,var(--accent));color:var(--on-brand,var(--on-accent));cursor:pointer}
button:disabled{opacity:.55;cursor:not-allowed}
button:focus-visible,textarea:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid var(--ring);outline-offset:2px}
fieldset{border:0;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}
legend{font-weight:600;margin-bottom:.25rem;padding:0}
.choice{display:flex;align-items:center;gap:.375rem;padding:.5rem .75rem;min-height:2.75rem;border:1px solid var(--line);border-radius:.5rem;font-weight:400}
.choice:has(input:checked){border-color:var(--accent);box-shadow:inset 0 0 0 1px var(--accent)}
.choice span[aria-hidden]{color:var(--accent);letter-spacing:.05em}
.form-msg{margin:0;min-height:1.5rem}
.flash{margin:0 0 1rem;padding:.75rem 1rem;border-radius:.75rem;border-left:4px solid var(--accent);background:var(--card);font-weight:600}
.flash.fail{border-left-color:var(--warn);background:var(--warn-bg)}
.find{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
.find label{flex:1 0 100%}
.find input{flex:1 1 10rem;width:auto;text-transform:uppercase}
.proof img{display:block;max-width:100%;border-radius:.5rem;margin-top:.5rem}
.langs{display:flex;justify-content:center;gap:1rem;list-style:none;padding:0;margin:0 0 .5rem}
.leaflet-control-attribution a{text-decoration:underline}`;
