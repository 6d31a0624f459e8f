import type { MessageChannel, MessageLocale, MessageTrigger } from '../../shared/db/tables/messages.js';

/** The variables a template may use (DESIGN §14); anything else in `{{…}}` is refused on save. */
export const TEMPLATE_VARIABLES = [
  'customer_first_name',
  'merchant_name',
  'carrier_name',
  'tracking_url',
  'eta_start',
  'eta_end',
  'pin',
  'courier_first_name',
  'failure_reason',
  'receiver_name',
] as const;
export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];
export type TemplateValues = Partial<Record<TemplateVariable, string>>;

/** One template: the text, and for email its subject. */
export interface Template {
  subject?: string;
  body: string;
}

type Texts = Record<MessageTrigger, { short: string; subject: string; long: string }>;

/*
 * The shipped texts, written as a carrier in Lima writes them: short, the merchant's name first
 * (the customer bought from the merchant, not from us), the link last so SMS apps make it
 * tappable. SMS and WhatsApp share the short text; email has a subject and a longer body.
 * The short texts keep to GSM-7 (it has é, ñ and ü, but not á, í, ó or ú): one accent outside it
 * turns the whole SMS into UCS-2, 70 characters a segment instead of 160; the failure's reason
 * in an SMS is written without accents for the same reason (content.ts). A failure's message
 * says no "today": quiet hours may hold it until the next morning (an attempt failed at 21:30 is
 * told at 08:00).
 */
const ES: Texts = {
  order_confirmed: {
    short:
      'Hola {{customer_first_name}}, recibimos tu pedido de {{merchant_name}}. Te avisaremos cuando salga a reparto. Sigue tu envio: {{tracking_url}}',
    subject: 'Tu pedido de {{merchant_name}} fue registrado',
    long: 'Hola {{customer_first_name}},\n\n{{carrier_name}} recibió tu pedido de {{merchant_name}}. Te escribiremos cuando salga a reparto.\n\nPuedes seguirlo aquí: {{tracking_url}}',
  },
  out_for_delivery: {
    short:
      'Hola {{customer_first_name}}, tu pedido de {{merchant_name}} sale hoy a reparto. Llega entre {{eta_start}} y {{eta_end}}. {{pin_line}}Sigue tu envio: {{tracking_url}}',
    subject: 'Tu pedido de {{merchant_name}} llega hoy entre {{eta_start}} y {{eta_end}}',
    long: 'Hola {{customer_first_name}},\n\nTu pedido de {{merchant_name}} ya salió a reparto y llega hoy entre {{eta_start}} y {{eta_end}}.\n{{pin_line}}\nSíguelo en vivo: {{tracking_url}}',
  },
  next_stop: {
    short:
      '{{customer_first_name}}, {{courier_first_name}} va en camino con tu pedido de {{merchant_name}}: eres la siguiente entrega. {{tracking_url}}',
    subject: '{{courier_first_name}} va en camino con tu pedido',
    long: 'Hola {{customer_first_name}},\n\n{{courier_first_name}} va en camino con tu pedido de {{merchant_name}}: eres su siguiente entrega. Ten a la mano tu documento.\n\nSíguelo en vivo: {{tracking_url}}',
  },
  delivered: {
    short:
      'Tu pedido de {{merchant_name}} fue entregado, lo recibio {{receiver_name}}. Gracias por tu compra! Cuentanos como te fue: {{tracking_url}}',
    subject: 'Tu pedido de {{merchant_name}} fue entregado',
    long: 'Hola {{customer_first_name}},\n\nTu pedido de {{merchant_name}} fue entregado; lo recibió {{receiver_name}}. ¡Gracias por tu compra!\n\nCuéntanos cómo te fue: {{tracking_url}}',
  },
  failed: {
    short:
      'Hola {{customer_first_name}}, no pudimos entregar tu pedido de {{merchant_name}} ({{failure_reason}}). Elige otro dia aqui: {{tracking_url}}',
    subject: 'No pudimos entregar tu pedido de {{merchant_name}}',
    long: 'Hola {{customer_first_name}},\n\nNo pudimos entregar tu pedido de {{merchant_name}}: {{failure_reason}}.\n\nElige otro día de entrega aquí: {{tracking_url}}',
  },
  rescheduled: {
    short:
      'Hola {{customer_first_name}}, reprogramamos la entrega de tu pedido de {{merchant_name}}. Te avisaremos cuando salga a reparto: {{tracking_url}}',
    subject: 'Reprogramamos la entrega de tu pedido',
    long: 'Hola {{customer_first_name}},\n\nReprogramamos la entrega de tu pedido de {{merchant_name}}. Te avisaremos cuando salga a reparto.\n\nSíguelo aquí: {{tracking_url}}',
  },
};

const EN: Texts = {
  order_confirmed: {
    short:
      'Hi {{customer_first_name}}, we have your order from {{merchant_name}}. We will text you when it is out for delivery. Track it: {{tracking_url}}',
    subject: 'Your order from {{merchant_name}} is confirmed',
    long: 'Hi {{customer_first_name}},\n\n{{carrier_name}} has your order from {{merchant_name}}. We will write again when it is out for delivery.\n\nTrack it here: {{tracking_url}}',
  },
  out_for_delivery: {
    short:
      'Hi {{customer_first_name}}, your order from {{merchant_name}} is out for delivery, arriving {{eta_start}}-{{eta_end}}. {{pin_line}}Track it: {{tracking_url}}',
    subject: 'Your order from {{merchant_name}} arrives today, {{eta_start}}-{{eta_end}}',
    long: 'Hi {{customer_first_name}},\n\nYour order from {{merchant_name}} is out for delivery and arrives today between {{eta_start}} and {{eta_end}}.\n{{pin_line}}\nTrack it live: {{tracking_url}}',
  },
  next_stop: {
    short:
      '{{customer_first_name}}, {{courier_first_name}} is on the way with your order from {{merchant_name}}: you are the next stop. {{tracking_url}}',
    subject: '{{courier_first_name}} is on the way with your order',
    long: 'Hi {{customer_first_name}},\n\n{{courier_first_name}} is on the way with your order from {{merchant_name}}: you are the next stop.\n\nTrack it live: {{tracking_url}}',
  },
  delivered: {
    short:
      'Your order from {{merchant_name}} was delivered, received by {{receiver_name}}. Thank you! Tell us how it went: {{tracking_url}}',
    subject: 'Your order from {{merchant_name}} was delivered',
    long: 'Hi {{customer_first_name}},\n\nYour order from {{merchant_name}} was delivered and received by {{receiver_name}}. Thank you!\n\nTell us how it went: {{tracking_url}}',
  },
  failed: {
    short:
      'Hi {{customer_first_name}}, we could not deliver your order from {{merchant_name}} ({{failure_reason}}). Choose a new day: {{tracking_url}}',
    subject: 'We could not deliver your order from {{merchant_name}}',
    long: 'Hi {{customer_first_name}},\n\nWe could not deliver your order from {{merchant_name}}: {{failure_reason}}.\n\nChoose a new delivery day here: {{tracking_url}}',
  },
  rescheduled: {
    short:
      'Hi {{customer_first_name}}, the delivery of your order from {{merchant_name}} was rescheduled. We will text you when it is on its way: {{tracking_url}}',
    subject: 'Your delivery was rescheduled',
    long: 'Hi {{customer_first_name}},\n\nThe delivery of your order from {{merchant_name}} was rescheduled. We will write again when it is out for delivery.\n\nTrack it here: {{tracking_url}}',
  },
};

const PT: Texts = {
  order_confirmed: {
    short:
      'Ola {{customer_first_name}}, recebemos seu pedido de {{merchant_name}}. Avisaremos quando sair para entrega. Acompanhe: {{tracking_url}}',
    subject: 'Seu pedido de {{merchant_name}} foi registrado',
    long: 'Olá {{customer_first_name}},\n\n{{carrier_name}} recebeu seu pedido de {{merchant_name}}. Avisaremos quando sair para entrega.\n\nAcompanhe aqui: {{tracking_url}}',
  },
  out_for_delivery: {
    short:
      'Ola {{customer_first_name}}, seu pedido de {{merchant_name}} saiu para entrega e chega entre {{eta_start}} e {{eta_end}}. {{pin_line}}Acompanhe: {{tracking_url}}',
    subject: 'Seu pedido de {{merchant_name}} chega hoje entre {{eta_start}} e {{eta_end}}',
    long: 'Olá {{customer_first_name}},\n\nSeu pedido de {{merchant_name}} saiu para entrega e chega hoje entre {{eta_start}} e {{eta_end}}.\n{{pin_line}}\nAcompanhe ao vivo: {{tracking_url}}',
  },
  next_stop: {
    short:
      '{{customer_first_name}}, {{courier_first_name}} esta a caminho com seu pedido de {{merchant_name}}: voce e a proxima entrega. {{tracking_url}}',
    subject: '{{courier_first_name}} está a caminho com seu pedido',
    long: 'Olá {{customer_first_name}},\n\n{{courier_first_name}} está a caminho com seu pedido de {{merchant_name}}: você é a próxima entrega.\n\nAcompanhe ao vivo: {{tracking_url}}',
  },
  delivered: {
    short:
      'Seu pedido de {{merchant_name}} foi entregue, recebido por {{receiver_name}}. Obrigado! Conte como foi: {{tracking_url}}',
    subject: 'Seu pedido de {{merchant_name}} foi entregue',
    long: 'Olá {{customer_first_name}},\n\nSeu pedido de {{merchant_name}} foi entregue e recebido por {{receiver_name}}. Obrigado pela compra!\n\nConte como foi: {{tracking_url}}',
  },
  failed: {
    short:
      'Ola {{customer_first_name}}, nao conseguimos entregar seu pedido de {{merchant_name}} ({{failure_reason}}). Escolha outro dia: {{tracking_url}}',
    subject: 'Não conseguimos entregar seu pedido de {{merchant_name}}',
    long: 'Olá {{customer_first_name}},\n\nNão conseguimos entregar seu pedido de {{merchant_name}}: {{failure_reason}}.\n\nEscolha outro dia de entrega aqui: {{tracking_url}}',
  },
  rescheduled: {
    short:
      'Ola {{customer_first_name}}, reagendamos a entrega do seu pedido de {{merchant_name}}. Avisaremos quando sair para entrega: {{tracking_url}}',
    subject: 'Reagendamos a sua entrega',
    long: 'Olá {{customer_first_name}},\n\nReagendamos a entrega do seu pedido de {{merchant_name}}. Avisaremos quando sair para entrega.\n\nAcompanhe aqui: {{tracking_url}}',
  },
};

const TEXTS: Record<MessageLocale, Texts> = { es: ES, en: EN, pt: PT };

/** The line that carries the delivery PIN, per locale; empty when the order has none. */
const PIN_LINE: Record<MessageLocale, string> = {
  es: 'Tu clave de entrega es {{pin}}. ',
  en: 'Your delivery PIN is {{pin}}. ',
  pt: 'Seu codigo de entrega e {{pin}}. ',
};

/** The shipped template of a trigger, channel and locale (what an account's override replaces). */
export function defaultTemplate(trigger: MessageTrigger, channel: MessageChannel, locale: MessageLocale): Template {
  const t = TEXTS[locale][trigger];
  return channel === 'email' ? { subject: t.subject, body: t.long } : { body: t.short };
}

/** What each failure reason says to a customer (the reasons of POST /orders/{id}/fail). */
export const FAILURE_WORDS: Record<MessageLocale, Record<string, string>> = {
  es: {
    customer_absent: 'no encontramos a nadie en la dirección',
    wrong_address: 'la dirección no es correcta',
    customer_rejected: 'el pedido fue rechazado',
    unsafe_location: 'no pudimos llegar a la dirección con seguridad',
    package_damaged: 'el paquete llegó dañado',
    other: 'tuvimos un inconveniente',
  },
  en: {
    customer_absent: 'nobody was at the address',
    wrong_address: 'the address is not right',
    customer_rejected: 'the parcel was refused',
    unsafe_location: 'we could not reach the address safely',
    package_damaged: 'the parcel was damaged',
    other: 'something went wrong',
  },
  pt: {
    customer_absent: 'não encontramos ninguém no endereço',
    wrong_address: 'o endereço não está correto',
    customer_rejected: 'o pedido foi recusado',
    unsafe_location: 'não conseguimos chegar ao endereço com segurança',
    package_damaged: 'o pacote chegou danificado',
    other: 'tivemos um problema',
  },
};

const VARIABLE = /\{\{\s*([a-z_]+)\s*\}\}/g;

/** Fills `{{name}}`; `pin_line` is the PIN sentence when there is a PIN, and nothing otherwise. */
export function render(text: string, values: TemplateValues, locale: MessageLocale): string {
  const withPin = text.replace(/\{\{\s*pin_line\s*\}\}/g, values.pin ? PIN_LINE[locale] : '');
  return withPin.replace(VARIABLE, (_m, name: string) => values[name as TemplateVariable] ?? '');
}

/** The `{{…}}` names a template uses that are not variables (refused when a template is saved). */
export function unknownVariables(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(VARIABLE)) {
    const name = m[1] as string;
    if (name !== 'pin_line' && !(TEMPLATE_VARIABLES as readonly string[]).includes(name)) out.push(name);
  }
  return out;
}
