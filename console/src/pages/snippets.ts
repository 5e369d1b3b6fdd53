/** Ready-to-run snippets per protocol (curl and the vendor's official SDK), with this gateway's base URL. The key stays a placeholder. */
export interface Snippet {
  label: string;
  language: string;
  code: string;
}

export function snippets(protocol: string, model: string, base: string): Snippet[] {
  const key = '$GATEWAY_API_KEY';
  switch (protocol) {
    case 'messages':
      return [
        {
          label: 'curl',
          language: 'shell',
          code: `curl ${base}/v1/messages \\\n  -H "x-api-key: ${key}" -H "anthropic-version: 2023-06-01" -H "content-type: application/json" \\\n  -d '{"model":"${model}","max_tokens":256,"messages":[{"role":"user","content":"Hello"}]}'`,
        },
        {
          label: 'Python (anthropic)',
          language: 'python',
          code: `import os, anthropic\nclient = anthropic.Anthropic(base_url="${base}", api_key=os.environ["GATEWAY_API_KEY"])\nmessage = client.messages.create(model="${model}", max_tokens=256, messages=[{"role": "user", "content": "Hello"}])\nprint(message.content[0].text)`,
        },
      ];
    case 'responses':
      return [
        {
          label: 'curl',
          language: 'shell',
          code: `curl ${base}/v1/responses \\\n  -H "Authorization: Bearer ${key}" -H "content-type: application/json" \\\n  -d '{"model":"${model}","input":"Hello"}'`,
        },
        {
          label: 'Python (openai)',
          language: 'python',
          code: `import os\nfrom openai import OpenAI\nclient = OpenAI(base_url="${base}/v1", api_key=os.environ["GATEWAY_API_KEY"])\nresponse = client.responses.create(model="${model}", input="Hello")\nprint(response.output_text)`,
        },
      ];
    case 'chat':
      return [
        {
          label: 'curl',
          language: 'shell',
          code: `curl ${base}/v1/chat/completions \\\n  -H "Authorization: Bearer ${key}" -H "content-type: application/json" \\\n  -d '{"model":"${model}","messages":[{"role":"user","content":"Hello"}]}'`,
        },
        {
          label: 'Python (openai)',
          language: 'python',
          code: `import os\nfrom openai import OpenAI\nclient = OpenAI(base_url="${base}/v1", api_key=os.environ["GATEWAY_API_KEY"])\ncompletion = client.chat.completions.create(model="${model}", messages=[{"role": "user", "content": "Hello"}])\nprint(completion.choices[0].message.content)`,
        },
      ];
    case 'generate-content':
      return [
        {
          label: 'curl',
          language: 'shell',
          code: `curl "${base}/v1beta/models/${model}:generateContent?key=${key}" \\\n  -H "content-type: application/json" \\\n  -d '{"contents":[{"role":"user","parts":[{"text":"Hello"}]}]}'`,
        },
        {
          label: 'Python (google-genai)',
          language: 'python',
          code: `import os\nfrom google import genai\nclient = genai.Client(api_key=os.environ["GATEWAY_API_KEY"], http_options={"base_url": "${base}"})\nresponse = client.models.generate_content(model="${model}", contents="Hello")\nprint(response.text)`,
        },
      ];
    default:
      return [];
  }
}

/** Media models are called on the image and task endpoints, whatever their protocol list says. */
export function mediaSnippets(kind: string, model: string, base: string): Snippet[] {
  const key = '$GATEWAY_API_KEY';
  if (kind === 'image') {
    return [
      {
        label: 'curl (images)',
        language: 'shell',
        code: `curl ${base}/v1/images/generations \\\n  -H "Authorization: Bearer ${key}" -H "content-type: application/json" \\\n  -d '{"model":"${model}","prompt":"A lighthouse at dusk","size":"1024x1024"}'`,
      },
    ];
  }
  if (kind === 'video') {
    return [
      {
        label: 'curl (task)',
        language: 'shell',
        code: `curl ${base}/v1/tasks/submit \\\n  -H "x-api-key: ${key}" -H "content-type: application/json" \\\n  -d '{"model":"${model}","prompt":"A lighthouse at dusk","duration_seconds":4}'`,
      },
    ];
  }
  return [];
}
