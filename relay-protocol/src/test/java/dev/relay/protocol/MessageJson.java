package dev.relay.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Converts messages to and from the {@code fields} objects of docs/protocol-vectors.json, walking
 * the record components: field names are the component names, except that a component holding a
 * {@link FencingToken} is {@code fencingToken} (the spec's word; the Java records say {@code token}
 * where the type already says it), i64 and smaller integers are JSON numbers, booleans are JSON
 * booleans, enums their names, payloads and tokens lowercase hex, an absent optstring is null,
 * lists are arrays and nested records objects.
 */
final class MessageJson {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final HexFormat HEX = HexFormat.of();
  private static final Map<Opcode, Class<?>> TYPES =
      Samples.frames().stream()
          .map(Frame::message)
          .collect(Collectors.toMap(Message::opcode, Object::getClass, (a, b) -> a));

  private MessageJson() {}

  static ObjectNode toJson(Record record) {
    ObjectNode node = JSON.objectNode();
    for (RecordComponent c : record.getClass().getRecordComponents()) {
      node.set(fieldName(c), valueToJson(read(c, record)));
    }
    return node;
  }

  static Message fromJson(Opcode opcode, JsonNode fields) {
    return (Message) recordFromJson(TYPES.get(opcode), fields);
  }

  private static JsonNode valueToJson(Object value) {
    if (value instanceof Long || value instanceof Integer) {
      return JSON.numberNode(((Number) value).longValue());
    } else if (value instanceof Boolean b) {
      return JSON.booleanNode(b);
    } else if (value instanceof String s) {
      return JSON.textNode(s);
    } else if (value instanceof Optional<?> o) {
      return o.map(MessageJson::valueToJson).orElse(JSON.nullNode());
    } else if (value instanceof Payload p) {
      return JSON.textNode(HEX.formatHex(p.toBytes()));
    } else if (value instanceof FencingToken t) {
      return JSON.textNode(t.toString());
    } else if (value instanceof Enum<?> e) {
      return JSON.textNode(e.name());
    } else if (value instanceof List<?> list) {
      ArrayNode array = JSON.arrayNode();
      list.forEach(element -> array.add(valueToJson(element)));
      return array;
    } else if (value instanceof Record r) {
      return toJson(r);
    }
    throw new IllegalArgumentException("no JSON form for " + value.getClass());
  }

  private static Object recordFromJson(Class<?> type, JsonNode fields) {
    RecordComponent[] components = type.getRecordComponents();
    Class<?>[] types = new Class<?>[components.length];
    Object[] args = new Object[components.length];
    for (int i = 0; i < components.length; i++) {
      types[i] = components[i].getType();
      JsonNode node = fields.get(fieldName(components[i]));
      if (node == null) {
        throw new IllegalArgumentException(type.getSimpleName() + " lacks " + components[i]);
      }
      args[i] = valueFromJson(components[i].getGenericType(), node);
    }
    try {
      Constructor<?> constructor = type.getDeclaredConstructor(types);
      return constructor.newInstance(args);
    } catch (InvocationTargetException e) {
      throw new IllegalArgumentException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object valueFromJson(Type type, JsonNode node) {
    if (type == long.class) {
      return node.longValue();
    } else if (type == int.class) {
      return node.intValue();
    } else if (type == boolean.class) {
      return node.booleanValue();
    } else if (type == String.class) {
      return node.textValue();
    } else if (type == Payload.class) {
      return Payload.of(HEX.parseHex(node.textValue()));
    } else if (type == FencingToken.class) {
      return FencingToken.fromHex(node.textValue());
    } else if (type instanceof Class<?> c && c.isEnum()) {
      return enumConstant(c, node.textValue());
    } else if (type instanceof Class<?> c && c.isRecord()) {
      return recordFromJson(c, node);
    } else if (type instanceof ParameterizedType p && p.getRawType() == Optional.class) {
      return node.isNull()
          ? Optional.empty()
          : Optional.of(valueFromJson(p.getActualTypeArguments()[0], node));
    } else if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
      List<Object> list = new ArrayList<>();
      node.forEach(element -> list.add(valueFromJson(p.getActualTypeArguments()[0], element)));
      return list;
    }
    throw new IllegalArgumentException("no JSON reading for " + type);
  }

  private static Object enumConstant(Class<?> type, String name) {
    for (Object constant : type.getEnumConstants()) {
      if (((Enum<?>) constant).name().equals(name)) {
        return constant;
      }
    }
    throw new IllegalArgumentException(type.getSimpleName() + " has no " + name);
  }

  /** The spec's name of a component's field. */
  private static String fieldName(RecordComponent component) {
    return component.getType() == FencingToken.class ? "fencingToken" : component.getName();
  }

  private static Object read(RecordComponent component, Record record) {
    try {
      return component.getAccessor().invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
