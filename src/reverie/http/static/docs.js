// reverie API docs: draws /openapi.json and sends requests from it. Loaded from 'self' (the CSP
// forbids inline code and every other origin); no library. Text from the document is only ever
// set with textContent, so nothing in it can become markup.
"use strict";

function el(tag, attrs, children) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (key) {
    if (key === "text") { node.textContent = attrs[key]; } else { node.setAttribute(key, attrs[key]); }
  });
  (children || []).forEach(function (child) { if (child) { node.appendChild(child); } });
  return node;
}

function resolve(doc, schema) {
  if (!schema) { return {}; }
  var ref = schema.$ref;
  if (!ref && schema.anyOf) {
    schema.anyOf.forEach(function (s) { if (s.$ref) { ref = s.$ref; } });
  }
  return ref ? doc.components.schemas[ref.split("/").pop()] : schema;
}

function typeOf(schema) {
  if (schema.type === "array") { return (typeOf(schema.items || {}) || "any") + "[]"; }
  if (schema.type) { return schema.type; }
  if (schema.$ref) { return schema.$ref.split("/").pop(); }
  if (schema.anyOf) { return schema.anyOf.map(typeOf).join(" | "); }
  if (schema.enum) { return schema.enum.join(" | "); }
  return "any";
}

function table(head, rows) {
  if (!rows.length) { return null; }
  return el("table", {"class": "fields"}, [
    el("tr", {}, head.map(function (h) { return el("th", {text: h}); })),
  ].concat(rows.map(function (row) {
    return el("tr", {}, row.map(function (cell) { return el("td", {text: String(cell)}); }));
  })));
}

function bodySkeleton(model) {
  var out = {};
  (model.required || []).forEach(function (name) {
    var field = model.properties[name] || {};
    out[name] = field.type === "array" ? [] : field.type === "object" ? {} : (field.enum ? field.enum[0] : "");
  });
  return JSON.stringify(out, null, 2);
}

function send(method, path, params, inputs, bodyBox, answer) {
  var url = path;
  var query = new URLSearchParams();
  params.forEach(function (p, i) {
    var value = inputs[i].value;
    if (p.in === "path") {
      url = url.replace("{" + p.name + "}", encodeURIComponent(value));
    } else if (value !== "") {
      value.split(",").forEach(function (v) { query.append(p.name, v.trim()); });
    }
  });
  if (String(query)) { url += "?" + query; }
  var headers = {};
  var token = document.getElementById("token").value;
  if (token) { headers.Authorization = "Bearer " + token; }
  var init = {method: method.toUpperCase(), headers: headers};
  if (bodyBox) {
    headers["Content-Type"] = "application/json";
    init.body = bodyBox.value;
  }
  answer.textContent = "sending…";
  fetch(url, init).then(function (response) {
    return response.text().then(function (text) {
      var shown = text;
      try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON: show as is */ }
      answer.textContent = response.status + " " + response.statusText + "\n" + shown;
      answer.setAttribute("data-status", String(response.status));
    });
  }).catch(function (error) {
    answer.textContent = "request failed: " + error;
  });
}

function operation(doc, path, method, op) {
  var params = op.parameters || [];
  var inputs = params.map(function (p) {
    return el("input", {name: p.name, placeholder: p.name + (p.required ? " (required)" : ""), "aria-label": p.name});
  });
  var bodyModel = op.requestBody ? resolve(doc, op.requestBody.content["application/json"].schema) : null;
  var bodyBox = bodyModel ? el("textarea", {name: "body", rows: "6", "aria-label": "JSON body"}) : null;
  if (bodyBox) { bodyBox.value = bodySkeleton(bodyModel); }
  var answer = el("pre", {"class": "answer"});
  var form = el("form", {"class": "try"}, inputs.concat([bodyBox, el("button", {text: "send"})]));
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    send(method, path, params, inputs, bodyBox, answer);
  });
  var fields = bodyModel ? Object.keys(bodyModel.properties || {}).map(function (name) {
    var f = bodyModel.properties[name];
    var required = (bodyModel.required || []).indexOf(name) >= 0;
    return [name, typeOf(f), required ? "required" : JSON.stringify(f.default === undefined ? null : f.default),
      f.description || ""];
  }) : [];
  return el("details", {"class": "op", "data-method": method.toUpperCase(), "data-path": path}, [
    el("summary", {}, [
      el("code", {"class": "method " + method, text: method.toUpperCase()}),
      el("code", {text: " " + path + " "}),
      el("span", {text: op.summary || ""}),
    ]),
    el("p", {text: op.description || ""}),
    table(["parameter", "in", "required", "description"], params.map(function (p) {
      return [p.name, p.in, p.required ? "yes" : "no", p.description || ""];
    })),
    table(["body field", "type", "default", "description"], fields),
    form,
    answer,
  ]);
}

document.addEventListener("DOMContentLoaded", function () {
  var box = document.getElementById("ops");
  fetch("/openapi.json").then(function (r) { return r.json(); }).then(function (doc) {
    box.textContent = "";
    Object.keys(doc.paths).forEach(function (path) {
      Object.keys(doc.paths[path]).forEach(function (method) {
        box.appendChild(operation(doc, path, method, doc.paths[path][method]));
      });
    });
  }).catch(function (error) {
    box.textContent = "could not load /openapi.json: " + error;
  });
});
