<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ru_RU">
<context>
    <name>AppContext</name>
    <message>
        <location filename="../../desktop/context.py" line="+342"/>
        <location filename="../../desktop/quote_pricing.py" line="+87"/>
        <source>No exchange rate for {0} → {1}: set one in Settings (Exchange rates).</source>
        <translation>Нет курса {0} → {1}: задайте его в «Настройках» (Курсы валют).</translation>
    </message>
</context>
<context>
    <name>CompareDialog</name>
    <message>
        <location filename="../../desktop/pages/probe_compare.py" line="+35"/>
        <source>Compare probe runs</source>
        <translation>Сравнение замеров</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Measurement</source>
        <translation>Измерение</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Second / first</source>
        <translation>Второй / первый</translation>
    </message>
</context>
<context>
    <name>ConstraintsPanel</name>
    <message>
        <location filename="../../desktop/pages/plan_constraints.py" line="+150"/>
        <source>Unchecked: the planner&apos;s default ({0})</source>
        <translation>Флажок снят: значение планировщика по умолчанию ({0})</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>default</source>
        <translation>по умолчанию</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>5. Constraints and assumptions</source>
        <translation>5. Ограничения и допущения</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>At most</source>
        <translation>Не больше</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Exactly</source>
        <translation>Ровно</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Budget</source>
        <translation>Бюджет</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Deadline</source>
        <translation>Срок</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rank by</source>
        <translation>Упорядочить</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory headroom</source>
        <translation>Запас памяти</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Host RAM per node</source>
        <translation>ОЗУ хоста на узел</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MFU override</source>
        <translation>Своя MFU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bandwidth efficiency</source>
        <translation>Доля пропускной способности</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The largest GPU count to consider; the search tries every count up to it</source>
        <translation>Наибольшее число GPU; поиск перебирает все количества до него</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Tick to plan exactly this many GPUs (for example the machine you have)</source>
        <translation>Отметьте, чтобы планировать ровно столько GPU (например, вашу машину)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Tick to hide options whose whole run costs more than this</source>
        <translation>Отметьте, чтобы скрыть варианты, чей запуск целиком стоит дороже</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Tick to hide options whose run takes longer than this many days</source>
        <translation>Отметьте, чтобы скрыть варианты, которые идут дольше стольких дней</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Share of each GPU&apos;s memory left free for the CUDA context, the allocator and NCCL buffers; an option fits when it needs at most the rest (vLLM leaves 10% by default)</source>
        <translation>Доля памяти каждого GPU, оставляемая свободной для контекста CUDA, аллокатора и буферов NCCL; вариант помещается, если ему хватает остального (vLLM по умолчанию оставляет 10 %)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Tick to set each node&apos;s CPU RAM: offloaded optimizer states and weights must fit in it (unticked: twice the node&apos;s GPU memory)</source>
        <translation>Отметьте, чтобы задать ОЗУ каждого узла: выгруженные состояния оптимизатора и веса должны в неё поместиться (без отметки: вдвое больше памяти GPU узла)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>GiB</source>
        <translation>ГиБ</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>days</source>
        <translation>дн.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Model FLOPs utilisation: the share of the GPUs&apos; dense peak a training step reaches.</source>
        <translation>Утилизация FLOPS модели (MFU): доля пиковой плотной производительности GPU, которую достигает шаг обучения.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Share of peak memory bandwidth reached when decoding (serving).</source>
        <translation>Доля пиковой пропускной способности памяти, достигаемая при декодировании (инференс).</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>fastest</source>
        <translation>сначала быстрые</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cheapest</source>
        <translation>сначала дешёвые</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Training: fastest run or lowest cost. Serving: lowest latency per token, or the fewest GPU-hours (cost) per token that still meets the target speed and users.</source>
        <translation>Обучение: самый быстрый прогон или самая низкая стоимость. Инференс: наименьшая задержка на токен или наименьшее число GPU-часов (стоимость) на токен при заданной скорости и числе пользователей.</translation>
    </message>
</context>
<context>
    <name>ErrorLog</name>
    <message>
        <location filename="../../desktop/error_log.py" line="+49"/>
        <source>This is a bug in GPU Advisor (details on stderr).</source>
        <translation>Это ошибка в GPU Advisor (подробности в stderr).</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>This is a bug in GPU Advisor; its report is in {0}.</source>
        <translation>Это ошибка в GPU Advisor; отчёт о ней — в {0}.</translation>
    </message>
</context>
<context>
    <name>FrontierChart</name>
    <message>
        <location filename="../../desktop/charts/frontier_chart.py" line="+63"/>
        <source>tokens/s per user (1 / time per output token)</source>
        <translation>токенов/с на пользователя (1 / время на выходной токен)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>output tokens/s per GPU</source>
        <translation>выходных токенов/с на GPU</translation>
    </message>
    <message>
        <location line="+44"/>
        <source>Throughput against latency</source>
        <translation>Пропускная способность против задержки</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Right of the red line: within the time-per-token target</source>
        <translation>Правее красной линии: в пределах цели по времени на токен</translation>
    </message>
    <message>
        <location filename="../../desktop/plan_frontier_job.py" line="+48"/>
        <source>Serving plans only: throughput against latency of the selected GPU type</source>
        <translation>Только для инференса: пропускная способность против задержки для выбранного типа GPU</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Timing the layouts…</source>
        <translation>Расчёт раскладок…</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>No layout of this GPU type fits one replica</source>
        <translation>Ни одна раскладка этого типа GPU не вмещает реплику</translation>
    </message>
</context>
<context>
    <name>GpuInventoryModel</name>
    <message>
        <location filename="../../desktop/qmodels/gpu_inventory.py" line="+32"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory</source>
        <translation>Память</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Driver / CUDA</source>
        <translation>Драйвер / CUDA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Compute cap.</source>
        <translation>Выч. возм.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PCIe link</source>
        <translation>Канал PCIe</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Power limit</source>
        <translation>Лимит мощн.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NVLink</source>
        <translation>NVLink</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MIG</source>
        <translation>MIG</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ECC</source>
        <translation>ECC</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Temp.</source>
        <translation>Темп.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PCI bus</source>
        <translation>Шина PCI</translation>
    </message>
    <message>
        <location line="+35"/>
        <location line="+94"/>
        <location line="+73"/>
        <source>n/a</source>
        <translation>н/д</translation>
    </message>
    <message>
        <location line="-116"/>
        <location line="+55"/>
        <source>GPU {0}</source>
        <translation>GPU {0}</translation>
    </message>
    <message>
        <location line="-52"/>
        <location line="+56"/>
        <source>{0}: {1} (lost)</source>
        <translation>{0}: {1} (потерян)</translation>
    </message>
    <message>
        <location line="-55"/>
        <source>The GPU stopped answering: {0}. Its last readings stay on the charts; restart the machine (or reset the GPU) to use it again.</source>
        <translation>GPU перестал отвечать: {0}. Последние показания остаются на графиках; чтобы снова им пользоваться, перезагрузите машину (или сбросьте GPU).</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>CPU: {0}</source>
        <translation>CPU: {0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} logical cores</source>
        <translation>логических ядер: {0}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>system memory (RAM)</source>
        <translation>оперативная память (ОЗУ)</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>The GPU stopped answering (fell off the bus); restart the machine.</source>
        <translation>GPU перестал отвечать (выпал с шины); перезагрузите машину.</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>on</source>
        <translation>вкл.</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+87"/>
        <source>off</source>
        <translation>выкл.</translation>
    </message>
    <message>
        <location line="-73"/>
        <location line="+31"/>
        <source>not reported</source>
        <translation>не сообщается</translation>
    </message>
    <message>
        <location line="-20"/>
        <source>{0} in use</source>
        <translation>занято {0}</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Gen {0} x{1}</source>
        <translation>Gen {0} x{1}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>maximum Gen {0} x{1}; the link trains down when idle</source>
        <translation>максимум Gen {0} x{1}; в простое канал снижает скорость</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>none</source>
        <translation>нет</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} × NVLink</source>
        <translation>{0} × NVLink</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{0} × NVLink, NVSwitch</source>
        <translation>{0} × NVLink, NVSwitch</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>peers: {0}</source>
        <translation>соседи: {0}</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>instance {0}: {1}</source>
        <translation>экземпляр {0}: {1}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>on, instances: {0}</source>
        <translation>вкл., экземпляров: {0}</translation>
    </message>
</context>
<context>
    <name>HardwarePage</name>
    <message>
        <location filename="../../desktop/pages/hardware.py" line="+239"/>
        <location line="+18"/>
        <source>Import probe report…</source>
        <translation>Импорт отчёта замера…</translation>
    </message>
    <message>
        <location line="-17"/>
        <source>Add a report made by gpu-probe on another machine</source>
        <translation>Добавить отчёт, снятый gpu-probe на другой машине</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Live telemetry</source>
        <translation>Телеметрия</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Probe</source>
        <translation>Замер</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Probe history</source>
        <translation>История замеров</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Run quick probe</source>
        <translation>Быстрый замер</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>About a minute: memory bandwidth, host links and bf16/fp32 matmul</source>
        <translation>Около минуты: пропускная способность памяти, каналы к хосту и умножение матриц bf16/fp32</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Run full probe</source>
        <translation>Полный замер</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Several minutes: every dtype, several matrix shapes, peer links</source>
        <translation>Несколько минут: все типы данных, несколько размеров матриц, каналы между GPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cancel</source>
        <translation>Отмена</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Compare selected</source>
        <translation>Сравнить выбранные</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Runs of this machine and imported reports. Select two to compare.</source>
        <translation>Замеры этой машины и импортированные отчёты. Выберите два, чтобы сравнить.</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>The probe runs in a separate process; the window stays responsive.</source>
        <translation>Замер идёт в отдельном процессе; окно не блокируется.</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Example run (not a measurement of this machine)</source>
        <translation>Пример замера (не измерение этой машины)</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>Reading the GPUs through NVML…</source>
        <translation>Чтение GPU через NVML…</translation>
    </message>
    <message>
        <location line="+7"/>
        <location line="+4"/>
        <source>n/a</source>
        <translation>н/д</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>NVIDIA GPUs: {0} · driver {1} · CUDA {2}</source>
        <translation>GPU NVIDIA: {0} · драйвер {1} · CUDA {2}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>CPU only: {0}</source>
        <translation>Только CPU: {0}</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>Live telemetry needs an NVIDIA GPU; there is none to sample here.</source>
        <translation>Для телеметрии нужен GPU NVIDIA; здесь опрашивать нечего.</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>Sampled once a second; the last five minutes are shown.</source>
        <translation>Опрос раз в секунду; показаны последние пять минут.</translation>
    </message>
    <message>
        <location line="-152"/>
        <source>Measure the CPU</source>
        <translation>Измерить CPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Run the quick probe on this machine&apos;s CPU</source>
        <translation>Запустить быстрый замер CPU этой машины</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&lt;p style=&apos;font-size:large&apos;&gt;&lt;b&gt;No GPU to watch&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Utilisation, memory, temperature and power are read from NVIDIA GPUs through the driver (NVML), once a second. This machine has none that NVML can see.&lt;/p&gt;</source>
        <translation>&lt;p style=&apos;font-size:large&apos;&gt;&lt;b&gt;Нет GPU для наблюдения&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Загрузка, память, температура и мощность считываются с GPU NVIDIA через драйвер (NVML) раз в секунду. На этой машине NVML не видит ни одного GPU.&lt;/p&gt;</translation>
    </message>
    <message>
        <location line="+110"/>
        <source>{0} ({1} lost)</source>
        <translation>{0} (потеряно: {1})</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>&lt;b&gt;No NVIDIA GPU&lt;/b&gt;: {0}.&lt;br&gt;The probe can still measure this machine&apos;s CPU (Measure the CPU), and you can import a report made by gpu-probe on another machine (Import probe report…) to plan with its numbers.</source>
        <translation>&lt;b&gt;Нет GPU NVIDIA&lt;/b&gt;: {0}.&lt;br&gt;Замер всё равно может измерить CPU этой машины (Измерить CPU), а отчёт, снятый gpu-probe на другой машине, можно импортировать (Импорт отчёта замера…) и планировать по его цифрам.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&lt;b&gt;No NVIDIA GPU&lt;/b&gt;: {0}.&lt;br&gt;The probe cannot run in this installation (the Probe tab says why), so import a report made by gpu-probe on another machine (Import probe report…) to plan with its numbers.</source>
        <translation>&lt;b&gt;Нет GPU NVIDIA&lt;/b&gt;: {0}.&lt;br&gt;В этой установке замер запустить нельзя (почему — сказано на вкладке «Замер»), поэтому импортируйте отчёт, снятый gpu-probe на другой машине (Импорт отчёта замера…), и планируйте по его цифрам.</translation>
    </message>
    <message>
        <location line="+127"/>
        <source>Lost during sampling (the others continue): {0}</source>
        <translation>Потеряны при опросе (остальные опрашиваются дальше): {0}</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>Starting the probe…</source>
        <translation>Запуск замера…</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Probe started ({0})</source>
        <translation>Замер запущен ({0})</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Cancelling…</source>
        <translation>Отмена…</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Probing devices: {0}…</source>
        <translation>Замер устройств: {0}…</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{0} — {1}</source>
        <translation>{0} — {1}</translation>
    </message>
    <message>
        <location line="+63"/>
        <source>{0} was busy when it was measured ({1}); its figures are lower than the hardware can do.</source>
        <translation>{0} был занят во время измерения ({1}); его показатели ниже возможностей оборудования.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Saving the results…</source>
        <translation>Сохранение результатов…</translation>
    </message>
    <message numerus="yes">
        <location line="+9"/>
        <source>Done: %n measurement(s) saved to the probe history.</source>
        <translation>
            <numerusform>Готово: %n измерение сохранено в истории замеров.</numerusform>
            <numerusform>Готово: %n измерения сохранены в истории замеров.</numerusform>
            <numerusform>Готово: %n измерений сохранено в истории замеров.</numerusform>
        </translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Probe finished and saved</source>
        <translation>Замер завершён и сохранён</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The probe finished but its report was not saved.</source>
        <translation>Замер завершён, но его отчёт не сохранён.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Cancelled</source>
        <translation>Отменено</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancelled.</source>
        <translation>Отменено.</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>The probe did not finish.</source>
        <translation>Замер не завершился.</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>Import probe report</source>
        <translation>Импорт отчёта замера</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Probe reports (*.json);;All files (*)</source>
        <translation>Отчёты замеров (*.json);;Все файлы (*)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Importing {0}…</source>
        <translation>Импорт {0}…</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Probe report imported</source>
        <translation>Отчёт замера импортирован</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The report was not imported: {0}</source>
        <translation>Отчёт не импортирован: {0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Import failed</source>
        <translation>Импорт не удался</translation>
    </message>
</context>
<context>
    <name>HardwarePanel</name>
    <message>
        <location filename="../../desktop/pages/plan_inputs.py" line="+576"/>
        <source>4. Hardware</source>
        <translation>4. Оборудование</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>filter GPUs and offers</source>
        <translation>фильтр GPU и предложений</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show only the rows whose name contains this text</source>
        <translation>Показать только строки, в названии которых есть этот текст</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Tick what the plan may run on: a measured machine (its probe figures, at most its GPUs), a catalog GPU (datasheet figures) or a quoted offer (its price)</source>
        <translation>Отметьте, на чём может идти план: измеренная машина (её замеры, не больше её GPU), GPU из каталога (паспортные данные) или предложение с котировкой (её цена)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>This machine (measured)</source>
        <translation>Эта машина (измерено)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Imported machines (measured)</source>
        <translation>Импортированные машины (измерено)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Catalog GPUs (spec sheet)</source>
        <translation>GPU из каталога (паспортные данные)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quoted offers (with their price)</source>
        <translation>Предложения из котировок (со своей ценой)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>none</source>
        <translation>нет</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} ({1} of {2})</source>
        <translation>{0} ({1} из {2})</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Only the cheapest of your quotes per GPU type, kind and currency are listed here, with every reference quote and the offers the plan uses; the Quotes page lists all {0}.</source>
        <translation>Здесь показаны только самые дешёвые из ваших котировок для каждого типа GPU, вида котировки и валюты, а также все справочные котировки и предложения, которые использует план; на странице «Котировки» есть все {0}.</translation>
    </message>
</context>
<context>
    <name>ImportPreviewDialog</name>
    <message>
        <location filename="../../desktop/pages/quote_import.py" line="+114"/>
        <source>Import preview</source>
        <translation>Предпросмотр импорта</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{0}: {1} rows, &lt;b&gt;{2} ready to import&lt;/b&gt;, {3} refused (listed below; they will be skipped).</source>
        <translation>{0}: строк — {1}, &lt;b&gt;готовы к импорту — {2}&lt;/b&gt;, отклонены — {3} (перечислены ниже; они будут пропущены).</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Row</source>
        <translation>Строка</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Reason</source>
        <translation>Причина</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Import valid rows ({0})</source>
        <translation>Импортировать корректные строки ({0})</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Showing the first {0} problems.</source>
        <translation>Показаны первые проблемы ({0}).</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../desktop/main_window.py" line="+316"/>
        <location filename="../../desktop/selftest.py" line="+177"/>
        <source>&amp;File</source>
        <translation>&amp;Файл</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Edit</source>
        <translation>&amp;Правка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;View</source>
        <translation>&amp;Вид</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Help</source>
        <translation>&amp;Справка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Import quotes CSV…</source>
        <translation>&amp;Импорт котировок из CSV…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Import &amp;probe report…</source>
        <translation>Импорт отчёта &amp;замера…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Export quotes CSV…</source>
        <translation>&amp;Экспорт котировок в CSV…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Quit</source>
        <translation>В&amp;ыход</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;About GPU Advisor</source>
        <translation>&amp;О программе GPU Advisor</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>User &amp;guide</source>
        <translation>&amp;Руководство</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>&amp;Undo</source>
        <translation>&amp;Отменить</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Redo</source>
        <translation>&amp;Повторить</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{0} {1}</source>
        <translation>{0} {1}</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+131"/>
        <source>GPU Advisor</source>
        <translation>GPU Advisor</translation>
    </message>
    <message>
        <location line="-121"/>
        <source>Reading GPUs…</source>
        <translation>Чтение GPU…</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>GPUs found: {0}</source>
        <translation>Найдено GPU: {0}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>No NVIDIA GPU</source>
        <translation>Нет GPU NVIDIA</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Temporary database (nothing is kept)</source>
        <translation>Временная база данных (ничего не сохраняется)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Database: {0}</source>
        <translation>База данных: {0}</translation>
    </message>
    <message>
        <location line="+74"/>
        <source>unknown</source>
        <translation>неизвестно</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>none ({0})</source>
        <translation>нет ({0})</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>none</source>
        <translation>нет</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not installed (needed only to run the probe)</source>
        <translation>не установлен (нужен только для замера)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Version</source>
        <translation>Версия</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Qt</source>
        <translation>Qt</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>NVIDIA driver</source>
        <translation>Драйвер NVIDIA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Database</source>
        <translation>База данных</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Plans and prices LLM work on NVIDIA GPUs: will it fit, how fast, with which sharding, how much, rent or buy. Works offline.</source>
        <translation>Планирует и оценивает работу с LLM на GPU NVIDIA: поместится ли модель, как быстро, с каким шардированием, сколько это стоит, арендовать или покупать. Работает без сети.</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>About GPU Advisor</source>
        <translation>О программе GPU Advisor</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Database not opened</source>
        <translation>База данных не открыта</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The database could not be opened:
{0}

GPU Advisor is running with a temporary database; nothing you enter now will be kept.</source>
        <translation>Не удалось открыть базу данных:
{0}

GPU Advisor работает с временной базой; всё, что вы сейчас введёте, не сохранится.</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Opening {0}…</source>
        <translation>Открывается страница «{0}»…</translation>
    </message>
</context>
<context>
    <name>ModelPanel</name>
    <message>
        <location filename="../../desktop/pages/plan_inputs.py" line="-311"/>
        <source>2. Model</source>
        <translation>2. Модель</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{0} ({1} B)</source>
        <translation>{0} ({1} млрд)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Preset</source>
        <translation>Пресет</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Size</source>
        <translation>Размер</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Local</source>
        <translation>Локальная</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>billion parameters</source>
        <translation>млрд параметров</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>config.json or a model folder</source>
        <translation>config.json или папка модели</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>File…</source>
        <translation>Файл…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Folder…</source>
        <translation>Папка…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>type to search presets</source>
        <translation>начните вводить для поиска пресета</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>A model from the shipped catalog (exact architecture numbers)</source>
        <translation>Модель из встроенного каталога (точные параметры архитектуры)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Type part of a name to search the presets</source>
        <translation>Введите часть названия, чтобы найти пресет</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A Llama-like model of this many billion parameters</source>
        <translation>Модель в стиле Llama с таким числом миллиардов параметров</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Parameters in billions; the slider covers 0.1 to 1,000</source>
        <translation>Параметры в миллиардах; ползунок — от 0,1 до 1 000</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Parameters in billions, on a log scale</source>
        <translation>Параметры в миллиардах, в логарифмической шкале</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A config.json or a model folder on this computer (read offline)</source>
        <translation>config.json или папка модели на этом компьютере (читается без сети)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The path of a config.json or of a folder with config.json and safetensors</source>
        <translation>Путь к config.json или к папке с config.json и safetensors</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Choose a config.json</source>
        <translation>Выбрать config.json</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose a model folder (config.json + safetensors)</source>
        <translation>Выбрать папку модели (config.json + safetensors)</translation>
    </message>
    <message>
        <location line="+42"/>
        <source>Model config.json</source>
        <translation>config.json модели</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>JSON files (*.json)</source>
        <translation>Файлы JSON (*.json)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Model folder (config.json + safetensors)</source>
        <translation>Папка модели (config.json + safetensors)</translation>
    </message>
</context>
<context>
    <name>NvmlWords</name>
    <message>
        <location filename="../../desktop/nvml_words.py" line="+14"/>
        <source>NVML not initialised</source>
        <translation>NVML не инициализирована</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>invalid argument</source>
        <translation>неверный аргумент</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not supported on this GPU or driver</source>
        <translation>не поддерживается этим GPU или драйвером</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no permission</source>
        <translation>нет прав</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not found</source>
        <translation>не найдено</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NVIDIA driver not loaded</source>
        <translation>драйвер NVIDIA не загружен</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NVML library not found (libnvidia-ml.so.1 / nvml.dll)</source>
        <translation>библиотека NVML не найдена (libnvidia-ml.so.1 / nvml.dll)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>function not in this driver&apos;s NVML</source>
        <translation>в NVML этого драйвера нет такой функции</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPU is lost (fell off the bus or hung)</source>
        <translation>GPU потерян (выпал с шины или завис)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NVML/driver version mismatch (reboot after a driver update)</source>
        <translation>версии NVML и драйвера не совпадают (перезагрузите машину после обновления драйвера)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MIG is off</source>
        <translation>MIG выключен</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not read</source>
        <translation>не прочитано</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no function to ask</source>
        <translation>нет функции для запроса</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the NVML bindings are not installed (pip install nvidia-ml-py)</source>
        <translation>привязки NVML не установлены (pip install nvidia-ml-py)</translation>
    </message>
</context>
<context>
    <name>Pages</name>
    <message>
        <location filename="../../desktop/pages/registry.py" line="+27"/>
        <source>Hardware</source>
        <translation>Оборудование</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quotes</source>
        <translation>Котировки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Plan</source>
        <translation>План</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rent or buy</source>
        <translation>Аренда или покупка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Settings</source>
        <translation>Настройки</translation>
    </message>
</context>
<context>
    <name>PlanCharts</name>
    <message>
        <location filename="../../desktop/charts/plan_charts.py" line="+29"/>
        <source>weights</source>
        <translation>веса</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>gradients</source>
        <translation>градиенты</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>optimizer states</source>
        <translation>состояния оптимизатора</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>activations</source>
        <translation>активации</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>KV cache</source>
        <translation>кэш KV</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>overhead</source>
        <translation>накладные расходы</translation>
    </message>
    <message>
        <location line="+80"/>
        <source>memory per GPU (GiB)</source>
        <translation>память на GPU (ГиБ)</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>capacity {0}</source>
        <translation>объём {0}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>usable {0} of {1}</source>
        <translation>доступно {0} из {1}</translation>
    </message>
    <message>
        <location line="+116"/>
        <source>hours</source>
        <translation>часы</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>days</source>
        <translation>дни</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>seconds</source>
        <translation>секунды</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>minutes</source>
        <translation>минуты</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>milliseconds</source>
        <translation>миллисекунды</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Time per output token</source>
        <translation>Время на выходной токен</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Time</source>
        <translation>Время</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Cost per 1M tokens</source>
        <translation>Цена за 1 млн токенов</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cost</source>
        <translation>Стоимость</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>GPUs</source>
        <translation>число GPU</translation>
    </message>
    <message>
        <location line="+86"/>
        <source>selected option</source>
        <translation>выбранный вариант</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>selected option, time {0}</source>
        <translation>выбранный вариант, время {0}</translation>
    </message>
</context>
<context>
    <name>PlanOptionsModel</name>
    <message>
        <location filename="../../desktop/qmodels/plan_options.py" line="+33"/>
        <location line="+13"/>
        <source>#</source>
        <translation>№</translation>
    </message>
    <message>
        <location line="-11"/>
        <location line="+13"/>
        <source>Strategy</source>
        <translation>Стратегия</translation>
    </message>
    <message>
        <location line="-9"/>
        <source>Cost</source>
        <translation>Стоимость</translation>
    </message>
    <message>
        <location line="-5"/>
        <location line="+13"/>
        <source>GPUs</source>
        <translation>Число GPU</translation>
    </message>
    <message>
        <location line="-11"/>
        <location line="+13"/>
        <source>Memory
per GPU</source>
        <translation>Память
на GPU</translation>
    </message>
    <message>
        <location line="-12"/>
        <source>Run
time</source>
        <translation>Время
работы</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPU-
hours</source>
        <translation>GPU-
часы</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+13"/>
        <source>Cost per
1M tokens</source>
        <translation>Цена за
1 млн ток.</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>Tokens/s
(all users)</source>
        <translation>Токенов/с
(все пользователи)</translation>
    </message>
    <message>
        <location line="-11"/>
        <location line="+13"/>
        <source>Basis</source>
        <translation>Основа</translation>
    </message>
    <message>
        <location line="-4"/>
        <source>First token
(prefill + wait)</source>
        <translation>Первый токен
(префилл + ожидание)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Per
token</source>
        <translation>На
токен</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>measured</source>
        <translation>измерено</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>datasheet</source>
        <translation>паспорт</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>user-set</source>
        <translation>задано пользователем</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>✓ ≤ {0}</source>
        <translation>✓ ≤ {0}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>✗ &gt; {0}</source>
        <translation>✗ &gt; {0}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>p90 {0}</source>
        <translation>p90 {0}</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>ZeRO-{0} × {1}</source>
        <translation>ZeRO-{0} × {1}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>DDP × {0}</source>
        <translation>DDP × {0}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>offload optimizer</source>
        <translation>выгрузка оптимизатора</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>offload all</source>
        <translation>выгрузка всего</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>full recompute</source>
        <translation>полный пересчёт активаций</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>selective recompute</source>
        <translation>выборочный пересчёт активаций</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+15"/>
        <source>single GPU</source>
        <translation>один GPU</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>{0} replicas</source>
        <translation>реплик: {0}</translation>
    </message>
    <message>
        <location line="+117"/>
        <source>{0} × {1}</source>
        <translation>{0} × {1}</translation>
    </message>
    <message>
        <location line="+67"/>
        <source>micro-batch {0}, {1}</source>
        <translation>микробатч {0}, {1}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Time to first token (TTFT) of a {0}-token prompt: the wait for a free slot, the prompt&apos;s prefill and the engine&apos;s per-request overhead</source>
        <translation>Время до первого токена (TTFT) для запроса из {0} токенов: ожидание свободного слота, префилл запроса и накладные расходы движка на запрос</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>measured: from a probe run of this GPU; datasheet: from the vendor&apos;s datasheet</source>
        <translation>замер: по замеру этого GPU; паспорт: по паспортным данным производителя</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>With losses from failures, checkpoints and restarts ({0} effective time); failure-free: {1}</source>
        <translation>С потерями на сбои, контрольные точки и перезапуски ({0} полезного времени); без сбоев: {1}</translation>
    </message>
    <message>
        <location line="-29"/>
        <source>Time per output token (TPOT) while decoding: the pace each user sees</source>
        <translation>Время на выходной токен (TPOT) при декодировании: с такой скоростью ответ видит каждый пользователь</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{0} of {1} per GPU</source>
        <translation>{0} из {1} на GPU</translation>
    </message>
</context>
<context>
    <name>PlanPage</name>
    <message>
        <location filename="../../desktop/pages/plan.py" line="+269"/>
        <source>Guided</source>
        <translation>Пошагово</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Expert</source>
        <translation>Эксперт</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>One question at a time, with Next and Back</source>
        <translation>По одному вопросу, с кнопками «Далее» и «Назад»</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>New</source>
        <translation>Новый</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Start a new plan from the defaults</source>
        <translation>Начать новый план со значений по умолчанию</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Saved plans…</source>
        <translation>Сохранённые планы…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open, rename or delete a saved plan</source>
        <translation>Открыть, переименовать или удалить сохранённый план</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save</source>
        <translation>Сохранить</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save the inputs of this plan</source>
        <translation>Сохранить входные данные этого плана</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save as…</source>
        <translation>Сохранить как…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save the inputs under a new name</source>
        <translation>Сохранить входные данные под новым именем</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export…</source>
        <translation>Экспорт…</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Write report.md, report.pdf, ds_config.json, accelerate_config.yaml, launch.sh and options.csv</source>
        <translation>Записать report.md, report.pdf, ds_config.json, accelerate_config.yaml, launch.sh и options.csv</translation>
    </message>
    <message>
        <location line="+76"/>
        <source>Step {0} of {1}</source>
        <translation>Шаг {0} из {1}</translation>
    </message>
    <message>
        <location filename="../../desktop/plan_text.py" line="+213"/>
        <source>{0}: {1} billion parameters</source>
        <translation>{0}: {1} млрд параметров</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>{0} billion active</source>
        <translation>{0} млрд активных</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} layers, no context limit (no attention layers)</source>
        <translation>слоёв: {0}, без предела контекста (нет слоёв внимания)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} layers, context {1} tokens</source>
        <translation>слоёв: {0}, контекст: {1} ток.</translation>
    </message>
    <message>
        <location filename="../../desktop/pages/plan.py" line="+245"/>
        <source>best layout</source>
        <translation>лучшая схема</translation>
    </message>
    <message>
        <location filename="../../desktop/plan_text.py" line="-111"/>
        <source>No plan yet.</source>
        <translation>Плана пока нет.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Nothing fits these limits.</source>
        <translation>В эти ограничения ничего не помещается.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>See the advice below.</source>
        <translation>См. советы ниже.</translation>
    </message>
    <message>
        <location line="-67"/>
        <source>{0} of {1} per GPU</source>
        <translation>{0} из {1} на GPU</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>{0} × {1}</source>
        <translation>{0} × {1}</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Does not fit</source>
        <translation>Не помещается</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>finishes in {0}</source>
        <translation>завершится за {0}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>micro-batch {0}, {1}</source>
        <translation>микробатч {0}, {1}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>runtime {0}</source>
        <translation>среда выполнения {0}</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Planning…</source>
        <translation>Планирование…</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Selected, row {0}:</source>
        <translation>Выбрана строка {0}:</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>{0} over the budget of {1} (the cheapest of them costs {2} on {3} × {4})</source>
        <translation>дороже бюджета {1} — {0} шт. (самый дешёвый из них стоит {2} на {3} × {4})</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>the budget cannot check {0} without a price</source>
        <translation>без цены бюджет не проверить — {0} шт.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{0} past the deadline of {1} (the fastest of them takes {2} on {3} × {4})</source>
        <translation>не укладываются в срок {1} — {0} шт. (самый быстрый из них займёт {2} на {3} × {4})</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Options hidden by your limits: {0}.</source>
        <translation>Варианты, скрытые вашими ограничениями: {0}.</translation>
    </message>
    <message>
        <location filename="../../desktop/pages/plan.py" line="-318"/>
        <source>&lt; &amp;Back</source>
        <translation>&lt; &amp;Назад</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Previous question (Alt+B)</source>
        <translation>Предыдущий вопрос (Alt+Н)</translation>
    </message>
    <message>
        <location line="+66"/>
        <source>See the &amp;advice</source>
        <translation>&amp;К советам</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;Next &gt;</source>
        <translation>&amp;Далее &gt;</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The options, charts and advice are on the right (Alt+A)</source>
        <translation>Варианты, графики и советы — справа (Alt+К)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Next question (Alt+N)</source>
        <translation>Следующий вопрос (Alt+Д)</translation>
    </message>
    <message>
        <location filename="../../desktop/plan_text.py" line="+56"/>
        <source>What will the model do: serve users, or train (from scratch, fully, or with adapters)?</source>
        <translation>Что будет делать модель: обслуживать пользователей или обучаться (с нуля, полностью или с адаптерами)?</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Which model? Pick a preset, give a size in billions of parameters, or open its config.</source>
        <translation>Какая модель? Выберите пресет, укажите размер в миллиардах параметров или откройте её конфигурацию.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>How long are the sequences and how large the batch? How much to train, or how fast to serve?</source>
        <translation>Какой длины последовательности и какой размер батча? Сколько обучать или с какой скоростью обслуживать?</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Which GPUs may it run on? Measured machines, catalog GPUs or offers you have quotes for.</source>
        <translation>На каких GPU можно запускать? Измеренные машины, GPU из каталога или предложения, на которые у вас есть котировки.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Any limits: GPU count, budget, deadline? The results on the right follow every answer.</source>
        <translation>Есть ли ограничения: число GPU, бюджет, срок? Результаты справа обновляются после каждого ответа.</translation>
    </message>
    <message>
        <location line="-158"/>
        <source>costs {0}</source>
        <translation>стоимость {0}</translation>
    </message>
    <message>
        <location line="-10"/>
        <source>{0} tokens/s for {1} users ({2} × up to {3} per replica), first token after {4} (a {6}-token prompt&apos;s prefill, the wait for a slot and the request overhead), then {5} per token</source>
        <translation>{0} токенов/с для {1} пользователей ({2} × до {3} на реплику), первый токен через {4} (префилл запроса из {6} токенов, ожидание слота и накладные расходы запроса), затем {5} на токен</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>{0} per 1M tokens</source>
        <translation>{0} за 1 млн токенов</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Best</source>
        <translation>Лучший вариант</translation>
    </message>
    <message>
        <location line="-28"/>
        <source>fits</source>
        <translation>помещается</translation>
    </message>
    <message>
        <location line="+89"/>
        <source>Price for {0}: {1}</source>
        <translation>Цена для {0}: {1}</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Nothing was excluded.</source>
        <translation>Ничего не исключено.</translation>
    </message>
    <message>
        <location filename="../../desktop/pages/plan_document.py" line="+61"/>
        <location line="+101"/>
        <location line="+3"/>
        <location filename="../../desktop/plan_text.py" line="+54"/>
        <source>Unsaved plan</source>
        <translation>Несохранённый план</translation>
    </message>
    <message>
        <location line="-76"/>
        <location line="+17"/>
        <source>Saved plan “{0}”</source>
        <translation>Сохранённый план «{0}»</translation>
    </message>
    <message>
        <location line="-10"/>
        <source>Save plan</source>
        <translation>Сохранить план</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Plan name:</source>
        <translation>Название плана:</translation>
    </message>
    <message>
        <location line="+68"/>
        <source>The plan “{0}” has unsaved changes.</source>
        <translation>В плане «{0}» есть несохранённые изменения.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Save them before closing?</source>
        <translation>Сохранить их перед закрытием?</translation>
    </message>
    <message>
        <location line="+42"/>
        <source>Memory per GPU of the chosen option</source>
        <translation>Память на GPU для выбранного варианта</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Time and cost against GPU count</source>
        <translation>Время и стоимость в зависимости от числа GPU</translation>
    </message>
    <message>
        <location line="-173"/>
        <source>no option that fits is selected: change the inputs until one fits, then export it</source>
        <translation>не выбран ни один помещающийся вариант: меняйте входные данные, пока какой-нибудь не поместится, затем экспортируйте его</translation>
    </message>
    <message>
        <location filename="../../desktop/pages/plan.py" line="-87"/>
        <source>Every input on one page, and the strategy fields you may pin</source>
        <translation>Все входные данные на одной странице и поля стратегии, которые можно закрепить</translation>
    </message>
    <message>
        <location line="+295"/>
        <source>Nothing fits: no times or costs to draw</source>
        <translation>Ничего не помещается: нечего показать по времени и стоимости</translation>
    </message>
    <message>
        <location filename="../../desktop/pages/plan_document.py" line="+187"/>
        <source>Export the selected option to a folder</source>
        <translation>Экспортировать выбранный вариант в папку</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Export failed</source>
        <translation>Экспорт не удался</translation>
    </message>
    <message>
        <location filename="../../desktop/pages/plan.py" line="+103"/>
        <source>Example: Llama 3.1 70B full fine-tune</source>
        <translation>Пример: полное дообучение Llama 3.1 70B</translation>
    </message>
    <message>
        <location filename="../../desktop/plan_request.py" line="+145"/>
        <source>run</source>
        <translation>замер</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Measured by a probe run; the plan uses its matmul and bandwidth figures.</source>
        <translation>Измерено замером; план использует его цифры умножения матриц и пропускной способности.</translation>
    </message>
    <message>
        <location filename="../../desktop/plan_scale_text.py" line="+78"/>
        <source>{0} interruptions per million GPU-hours, set by you</source>
        <translation>{0} прерываний на миллион GPU-часов, задано вами</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{0} h projected mean time to failure of a {1}-GPU job on Meta&apos;s A100 research clusters (arXiv 2410.21680)</source>
        <translation>{0} ч — прогноз среднего времени до сбоя задания на {1} GPU в исследовательских кластерах A100 компании Meta (arXiv 2410.21680)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{0} unexpected interruptions in {1} days on {2} H100s (Llama 3, arXiv 2407.21783, section 3.3.4)</source>
        <translation>{0} внеплановых прерываний за {1} дн. на {2} H100 (Llama 3, arXiv 2407.21783, раздел 3.3.4)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} interruptions per million GPU-hours: no published rate for {1}, the H100 figure: {2}</source>
        <translation>{0} прерываний на миллион GPU-часов: для {1} опубликованной частоты нет, взята цифра H100: {2}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} interruptions per million GPU-hours: {1}</source>
        <translation>{0} прерываний на миллион GPU-часов: {1}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>local NVMe, one drive per GPU at {0} (DGX H100 layout; PM1733 / 7450 datasheets)</source>
        <translation>локальный NVMe, по диску на GPU, {0} (компоновка DGX H100; спецификации PM1733 / 7450)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>parallel file system, {0} sustained in all (Llama 3&apos;s Tectonic, arXiv 2407.21783 section 3.3.1), at most {1} per GPU</source>
        <translation>параллельная файловая система, {0} устойчиво в сумме (Tectonic у Llama 3, arXiv 2407.21783, раздел 3.3.1), не больше {1} на GPU</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>your storage, {0} per GPU</source>
        <translation>ваше хранилище, {0} на GPU</translation>
    </message>
    <message>
        <location line="+5"/>
        <location line="+9"/>
        <location line="+104"/>
        <source>set by you</source>
        <translation>задано вами</translation>
    </message>
    <message>
        <location line="-112"/>
        <source>{0} NCCL timeout (PyTorch default) + {1} rescheduling and start-up (TrainMover, arXiv 2412.12636) + reading the checkpoint back</source>
        <translation>{0} тайм-аут NCCL (по умолчанию в PyTorch) + {1} на перепланирование и запуск (TrainMover, arXiv 2412.12636) + чтение контрольной точки</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Daly&apos;s optimum for this write time and rate (FGCS 22(3), 2006)</source>
        <translation>оптимум Дейли для этого времени записи и частоты сбоев (FGCS 22(3), 2006)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no interruptions: no checkpoint needed</source>
        <translation>прерываний нет: контрольные точки не нужны</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>failure-free {0} ÷ effective time</source>
        <translation>без сбоев {0} ÷ полезное время</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} an hour, one every {1}</source>
        <translation>{0} в час, одно каждые {1}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>spot reclaims {0} an hour</source>
        <translation>отзывы спота {0} в час</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Effective training time</source>
        <translation>Эффективное время обучения</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+16"/>
        <location line="+3"/>
        <location line="+3"/>
        <location line="+75"/>
        <source>{0} of the wall time</source>
        <translation>{0} общего времени</translation>
    </message>
    <message>
        <location line="-96"/>
        <source>Daly&apos;s model of failures, checkpoints and restarts</source>
        <translation>модель Дейли: сбои, контрольные точки и перезапуски</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interruptions expected</source>
        <translation>Ожидаемые прерывания</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>over the run, at the rate below</source>
        <translation>за весь прогон, при частоте ниже</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interruption rate</source>
        <translation>Частота прерываний</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Wall time with losses</source>
        <translation>Время с потерями</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>GPU-hours with losses</source>
        <translation>GPU-часы с потерями</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+2"/>
        <source>{0} GPU-h</source>
        <translation>{0} GPU-ч</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cost with losses</source>
        <translation>Стоимость с потерями</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>no price</source>
        <translation>нет цены</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Lost to restarts</source>
        <translation>Потери на перезапуски</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>detection, rescheduling and reload after each interruption</source>
        <translation>обнаружение, перепланирование и загрузка после каждого прерывания</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Lost to checkpoint writes</source>
        <translation>Потери на запись точек</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>training waits while the checkpoint is written</source>
        <translation>обучение ждёт, пока пишется контрольная точка</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Lost to rework</source>
        <translation>Потери на повтор работы</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>work since the last checkpoint, redone after an interruption</source>
        <translation>работа после последней контрольной точки, повторяемая после прерывания</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Checkpoint size</source>
        <translation>Размер контрольной точки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>trainable weights and their optimizer state, sharded over {0} GPUs</source>
        <translation>обучаемые веса и состояние оптимизатора, поделённые между {0} GPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Checkpoint write time</source>
        <translation>Время записи точки</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Checkpoint interval</source>
        <translation>Интервал контрольных точек</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>every {0} of work</source>
        <translation>каждые {0} работы</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>never</source>
        <translation>никогда</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Restart time</source>
        <translation>Время перезапуска</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>No option is selected.</source>
        <translation>Вариант не выбран.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Goodput is a term of training runs; serving replicas fail one at a time.</source>
        <translation>Полезное время считается для обучения; реплики инференса отказывают по одной.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Failures are turned off (0 per million GPU-hours): no goodput term.</source>
        <translation>Сбои отключены (0 на миллион GPU-часов): полезное время не учитывается.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Goodput of {0} × {1}</source>
        <translation>Полезное время: {0} × {1}</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>The wall time and GPU-hours with losses count the steady steps at this layout (compute, the tensor/pipeline/data-parallel communication the step exposes, the optimizer) and the losses above (failures, checkpoint writes, restarts, rework). Not counted: evaluation, data-loading stalls, other stages (long-context, post-training), ablations and queueing.</source>
        <translation>Время работы и GPU-часы с потерями учитывают установившиеся шаги при этой раскладке (вычисления, обмены тензорного, конвейерного параллелизма и параллелизма данных, которые шаг не скрывает, оптимизатор) и потери выше (сбои, запись контрольных точек, перезапуски, повторную работу). Не учтены: оценка модели, простои загрузки данных, другие этапы (длинный контекст, дообучение), пробные запуски и ожидание в очереди.</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>{0} effective time</source>
        <translation>{0} полезного времени</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>as the spot quotes state it</source>
        <translation>как указано в спотовых котировках</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no quote states a rate: AWS Spot Instance Advisor&apos;s top band, over {0} of instances interrupted a month</source>
        <translation>ни одна котировка не указывает частоту: верхняя полоса AWS Spot Instance Advisor, более {0} инстансов прерываются за месяц</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>{0}/GPU-h</source>
        <translation>{0}/GPU-ч</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>the job&apos;s failures and the reclaims of its {0}: every reclaimed node stops the whole job</source>
        <translation>сбои задачи и отзывы её узлов ({0}): каждый отозванный узел останавливает всю задачу</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>yes</source>
        <translation>да</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>no</source>
        <translation>нет</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Spot reclaim rate</source>
        <translation>Частота отзывов спота</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} per node-hour</source>
        <translation>{0} на узел в час</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Spot per useful GPU-hour</source>
        <translation>Спот за полезный GPU-час</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>spot price {0} ÷ {1} effective time</source>
        <translation>спотовая цена {0} ÷ {1} эффективного времени</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>On demand per useful GPU-hour</source>
        <translation>По требованию за полезный GPU-час</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>on-demand price {0} ÷ {1} effective time</source>
        <translation>цена по требованию {0} ÷ {1} эффективного времени</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Effective time on spot</source>
        <translation>Эффективное время на споте</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Effective time on demand</source>
        <translation>Эффективное время по требованию</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the job&apos;s failures only</source>
        <translation>только сбои задачи</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Spot pays for this job</source>
        <translation>Спот выгоден для этой задачи</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>spot is cheaper per useful GPU-hour</source>
        <translation>спот дешевле за полезный GPU-час</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Largest job at which spot pays</source>
        <translation>Наибольшая задача, при которой спот выгоден</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the same job on more or fewer nodes of {0} GPUs</source>
        <translation>та же задача на большем или меньшем числе узлов по {0} GPU</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>any size</source>
        <translation>любой размер</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Spot pays at every job size up to {0} nodes.</source>
        <translation>Спот выгоден при любом размере задачи до {0} узлов.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Spot does not pay even on one node: on-demand capacity is cheaper per useful GPU-hour.</source>
        <translation>Спот невыгоден даже на одном узле: мощности по требованию дешевле за полезный GPU-час.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Spot stops paying above {0}: a larger job loses more to reclaims than spot saves.</source>
        <translation>Спот перестаёт окупаться, когда в задаче больше, чем {0}: крупная задача теряет на отзывах больше, чем экономит спот.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Spot against on demand</source>
        <translation>Спот против аренды по требованию</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>No goodput term (failures off, or serving): spot is not compared with on demand.</source>
        <translation>Нет члена goodput (сбои отключены или это инференс): спот не сравнивается с арендой по требованию.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>No spot price for {0}: add a spot quote on the Quotes page to compare spot with on demand.</source>
        <translation>Нет спотовой цены для {0}: добавьте спотовую котировку на странице «Котировки», чтобы сравнить спот с арендой по требованию.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>No on-demand price for {0} in {1}: spot is not compared.</source>
        <translation>Нет цены по требованию для {0} в {1}: спот не сравнивается.</translation>
    </message>
    <message>
        <location line="+49"/>
        <source>{0} layers</source>
        <translation>слоёв: {0}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the embedding</source>
        <translation>эмбеддинги</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the LM head</source>
        <translation>голова языковой модели</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stage {0}: {1} × {2}, {3}, {4} per GPU of {5} (TP {6} × PP {7})</source>
        <translation>Ступень {0}: {1} × {2}, {3}, {4} на GPU из {5} (TP {6} × PP {7})</translation>
    </message>
    <message>
        <location line="+50"/>
        <source>Run perfectly (every GPU doing only its layers at its type&apos;s fastest pace: no bubble, communication, LM head or optimizer), the types would do {0} tokens/s: no way beats it.</source>
        <translation>В идеале (каждый GPU считает только свои слои в самом быстром темпе своего типа: без пузыря, обменов, головы языковой модели и оптимизатора) типы дали бы {0} токенов/с: ни один способ этого не превосходит.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Their own plans add up to {0} tokens/s (separate jobs together): the whole pool as one data-parallel job never beats it.</source>
        <translation>Их собственные планы в сумме дают {0} токенов/с (отдельные задачи вместе): весь пул как одна задача с параллелизмом по данным этого никогда не превосходит.</translation>
    </message>
    <message>
        <location line="-26"/>
        <source>{0}: does not fit.</source>
        <translation>{0}: не помещается.</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Best on the pool: {0} ({1})</source>
        <translation>Лучшее на пуле: {0} ({1})</translation>
    </message>
</context>
<context>
    <name>PlanRequest</name>
    <message>
        <location filename="../../desktop/plan_request.py" line="+119"/>
        <source>{0} · {1} · {2}/GPU-h · {3}</source>
        <translation>{0} · {1} · {2}/GPU-ч · {3}</translation>
    </message>
</context>
<context>
    <name>PlannerMessages</name>
    <message>
        <location filename="../../desktop/message_templates.py" line="+26"/>
        <source>DDP</source>
        <translation>DDP</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ZeRO-{zero}</source>
        <translation>ZeRO-{zero}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ZeRO-3/FSDP</source>
        <translation>ZeRO-3/FSDP</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{family} + optimizer offload</source>
        <translation>{family} + выгрузка оптимизатора</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{family} + all offload</source>
        <translation>{family} + выгрузка всего</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{family} without tensor/pipeline parallel</source>
        <translation>{family} без тензорного и конвейерного параллелизма</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>tensor/pipeline parallel</source>
        <translation>тензорный/конвейерный параллелизм</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ZeRO-{zero} + pipeline parallel</source>
        <translation>ZeRO-{zero} + конвейерный параллелизм</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>pipeline parallel</source>
        <translation>конвейерный параллелизм</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+41"/>
        <source>{gpus} GPUs</source>
        <translation>{gpus} GPU</translation>
    </message>
    <message>
        <location line="-40"/>
        <source>{precision} inference</source>
        <translation>инференс в {precision}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{precision} on {gpu_id}</source>
        <translation>{precision} на {gpu_id}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>needs {need_bytes} per GPU, has {capacity_bytes} on {gpu}</source>
        <translation>нужно {need_bytes} на GPU, а у {gpu} только {capacity_bytes}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>fits the GPU, but its {gpus} GPU(s) per node offload {need_bytes} to CPU RAM, more than the node&apos;s {host_bytes} (--host-ram-gib)</source>
        <translation>помещается в GPU, но {gpus} GPU узла выгружают в ОЗУ {need_bytes}, больше, чем есть у узла ({host_bytes}; --host-ram-gib)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>needs {need_bytes} per GPU ({strategy}, {gpus} GPUs), has {capacity_bytes} on {gpu}</source>
        <translation>нужно {need_bytes} на GPU ({strategy}, {gpus} GPU), а у {gpu} только {capacity_bytes}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>not searched: pipeline parallel runs with ZeRO stage 0 or 1 only (DeepSpeed&apos;s pipeline engine: &quot;ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism&quot;; Megatron-LM&apos;s distributed optimizer is ZeRO-1); pin ZeRO 0/1 to use a pipeline, or PP 1 to keep ZeRO-2/3</source>
        <translation>не перебиралось: конвейерный параллелизм работает только со стадиями ZeRO 0 и 1 (конвейерный движок DeepSpeed: «ZeRO-2 и ZeRO-3 несовместимы с конвейерным параллелизмом»; распределённый оптимизатор Megatron-LM — это ZeRO-1); закрепите ZeRO 0/1, чтобы использовать конвейер, или PP 1, чтобы остаться на ZeRO-2/3</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>no tp x pp x dp layout divides {gpus} GPUs for {model} (tp must divide {heads} heads, dp at most the global batch)</source>
        <translation>{gpus} GPU нельзя разложить как tp × pp × dp для {model} (tp должен делить число голов внимания, {heads}, а dp — не больше глобального батча)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>no tensor/pipeline layout is possible on {where}</source>
        <translation>на {where} невозможна ни одна раскладка тензорного/конвейерного параллелизма</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>needs {need_bytes} per GPU at the lightest layout on {where}, has {capacity_bytes}</source>
        <translation>даже при самой лёгкой раскладке на {where} нужно {need_bytes} на GPU, а есть только {capacity_bytes}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{gpu} (compute capability {capability}) cannot run {precision}: it needs compute capability {needed_capability} or newer</source>
        <translation>{gpu} (compute capability {capability}) не поддерживает {precision}: нужна compute capability {needed_capability} или новее</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{gpu} has no {precision} support</source>
        <translation>{gpu} не поддерживает {precision}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{gpus} x {gpu}</source>
        <translation>{gpus} × {gpu}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>one {gpu}</source>
        <translation>одном {gpu}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>up to {gpus} GPUs</source>
        <translation>не более {gpus} GPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Plain data parallel (DDP) cannot work on {gpu}: the model states alone are {state_bytes} per GPU against {capacity_bytes}; they need sharding, e.g. {hint} (the fastest option uses {strategy}).</source>
        <translation>Обычный параллелизм по данным (DDP) на {gpu} не сработает: одни только состояния модели занимают {state_bytes} на GPU при {capacity_bytes} памяти; их нужно шардировать, например {hint} (самый быстрый вариант: {strategy}).</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Nothing fits on {gpu} within the {headroom_percent}% memory headroom ({capacity_bytes} of {memory_bytes}): the options shown fit only inside it (tight). The headroom is for the CUDA context, the allocator&apos;s fragmentation and NCCL buffers; a tight option runs out of memory if they take more than its margin.</source>
        <translation>На {gpu} ничего не помещается в пределах {headroom_percent}% запаса памяти ({capacity_bytes} из {memory_bytes}): показанные варианты помещаются только за счёт запаса (впритык). Запас нужен для контекста CUDA, фрагментации аллокатора и буферов NCCL; вариант впритык упадёт с нехваткой памяти, если они займут больше оставшегося свободного объёма.</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>{model} in {precision} does not fit {where} ({need_bytes} needed per GPU, {capacity_bytes} available). What would: {ideas}.</source>
        <translation>{model} в {precision} не помещается на {where} (нужно {need_bytes} на GPU, доступно {capacity_bytes}). Что поможет: {ideas}.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>int4 weights (GPTQ/AWQ, about 4.25 bits): {int4_bytes} on one GPU, fits one GPU</source>
        <translation>веса в int4 (GPTQ/AWQ, около 4,25 бита): {int4_bytes} на одном GPU — помещается на один GPU</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>int4 weights (GPTQ/AWQ, about 4.25 bits): {int4_bytes} on one GPU, needs about {gpus} GPUs with tensor parallel</source>
        <translation>веса в int4 (GPTQ/AWQ, около 4,25 бита): {int4_bytes} на одном GPU — нужно около {gpus} GPU с тензорным параллелизмом</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>offload the weights to CPU RAM (accelerate device_map, llama.cpp): runs, but every token streams {streamed_bytes} or more over PCIe, about {token_time_s} per token</source>
        <translation>выгрузка весов в ОЗУ (device_map в accelerate, llama.cpp): заработает, но на каждый токен по PCIe придётся передавать не меньше {streamed_bytes}, около {token_time_s} на токен</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>more GPUs: at least {gpus} x {gpu} with tensor parallel</source>
        <translation>больше GPU: не меньше {gpus} × {gpu} с тензорным параллелизмом</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No option meets the deadline and budget.{sentences}</source>
        <translation>Ни один вариант не укладывается в срок и бюджет.{sentences}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fastest: {wall_time_s} on {gpus} x {gpu}.</source>
        <translation>Быстрее всего: {wall_time_s} на {gpus} × {gpu}.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cheapest: {cost} on {gpus} x {gpu}.</source>
        <translation>Дешевле всего: {cost} на {gpus} × {gpu}.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>global batch {effective_batch} sequences (dp {dp} x micro-batch {micro_batch} x {accumulation_steps} accumulation steps), not {global_batch}</source>
        <translation>глобальный батч — {effective_batch} посл. (dp {dp} × микробатч {micro_batch} × {accumulation_steps} шагов накопления градиента), а не {global_batch}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{runtime} chosen, the most useful tokens/s that fits: {candidates}</source>
        <translation>выбран {runtime}: больше всего полезных токенов/с из тех, что помещаются: {candidates}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{runtime} {need_bytes} per GPU, step {step_time_s}, {useful_tokens_per_s} useful tokens/s</source>
        <translation>{runtime}: {need_bytes} на GPU, шаг {step_time_s}, {useful_tokens_per_s} полезных токенов/с</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{runtime} {need_bytes} per GPU, does not fit</source>
        <translation>{runtime}: {need_bytes} на GPU, не помещается</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{runtime} cannot run this layout</source>
        <translation>{runtime} не может выполнить эту раскладку</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TIGHT: needs {need_bytes} of {memory_bytes}, inside the {headroom_percent}% headroom; {margin_bytes} left for the CUDA context, allocator and NCCL buffers</source>
        <translation>ВПРИТЫК: нужно {need_bytes} из {memory_bytes}, за счёт {headroom_percent}% запаса; на контекст CUDA, аллокатор и буферы NCCL остаётся {margin_bytes}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>gradients: {runtime} reduces them over the data-parallel ranks in {wire_bits}-bit buckets of {bucket_bytes} beside the backward; the embedding&apos;s, produced last, is the exposed tail</source>
        <translation>градиенты: {runtime} сводит их по рангам параллелизма данных {wire_bits}-битными корзинами по {bucket_bytes} параллельно с обратным проходом; градиент эмбеддинга, получаемый последним, остаётся открытым хвостом</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>gradients: {runtime} reduce-scatters them over the data-parallel ranks in {wire_bits} bits, one collective per layer beside the backward; the embedding&apos;s, produced last, is the exposed tail</source>
        <translation>градиенты: {runtime} сводит их с разбиением по рангам параллелизма данных в {wire_bits} битах, одна коллективная операция на слой параллельно с обратным проходом; градиент эмбеддинга, получаемый последним, остаётся открытым хвостом</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>gradients: {runtime} all-reduces them over the data-parallel ranks in {wire_bits}-bit buffers of {bucket_bytes} after the backward, nothing hidden</source>
        <translation>градиенты: {runtime} сводит их целиком на каждом ранге параллелизма данных {wire_bits}-битными буферами по {bucket_bytes} после обратного прохода, ничего не скрыто</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>decode is memory bandwidth-bound at batch {batch}</source>
        <translation>при батче {batch} декодирование упирается в пропускную способность памяти</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>decode is compute-bound at batch {batch}</source>
        <translation>при батче {batch} декодирование упирается в вычисления</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>misses the {target_tokens_per_second} tokens/s target</source>
        <translation>не достигает цели в {target_tokens_per_second} токенов/с</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{queued} users per replica wait for one of its {slots} sequence slots</source>
        <translation>{queued} пользователей на реплику ждут одного из её {slots} мест для последовательностей</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>speculative decoding is not modelled (one token per sequence per decode step)</source>
        <translation>спекулятивное декодирование не моделируется (один токен на последовательность за шаг декодирования)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>disaggregated: a prefill pool of {prefill_replicas} x TP {prefill_tp} sends each prompt&apos;s KV cache ({transfer_s}) to a decode pool of {decode_replicas} x TP {decode_tp} (the layout shown)</source>
        <translation>раздельные пулы: пул предзаполнения из {prefill_replicas} x TP {prefill_tp} передаёт KV-кэш каждого запроса ({transfer_s}) пулу декодирования из {decode_replicas} x TP {decode_tp} (показанная схема)</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>tp {tp} exceeds the {kv_heads} KV heads: each KV head is replicated on {replicas} ranks</source>
        <translation>tp {tp} больше числа голов KV ({kv_heads}): каждая голова KV повторяется на {replicas} рангах</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>sequence length {seq_len} exceeds {model}&apos;s context of {context} tokens</source>
        <translation>длина последовательности {seq_len} больше контекста {model} ({context} токенов)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{model}&apos;s vision tower and projector ({towers}: {params:number} parameters) are not in this plan; it covers the text decoder only</source>
        <translation>визуальная башня и проектор {model} ({towers}: {params:number} параметров) не входят в этот план; он охватывает только текстовый декодер</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{model}&apos;s {towers} (size not read) are not in this plan; it covers the text decoder only</source>
        <translation>{towers} модели {model} (размер не прочитан) не входят в этот план; он охватывает только текстовый декодер</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>QLoRA keeps the base in NF4 and computes in bf16; precision {precision} is not used</source>
        <translation>QLoRA хранит базовую модель в NF4 и считает в bf16; точность {precision} не используется</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>ZeRO stage {zero} with dp 1 shards nothing: there is only one data-parallel rank</source>
        <translation>стадия ZeRO {zero} при dp 1 ничего не шардирует: ранг параллелизма по данным всего один</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>ZeRO-{zero} with pipeline parallel: DeepSpeed&apos;s pipeline engine accepts ZeRO stage 0 or 1 only, and TorchTitan&apos;s FSDP keeps each stage&apos;s parameters whole between forward and backward under PP; these figures assume full ZeRO-{zero} sharding</source>
        <translation>ZeRO-{zero} с конвейерным параллелизмом: конвейерный движок DeepSpeed принимает только стадии ZeRO 0 и 1, а FSDP в TorchTitan при PP держит параметры каждой стадии целиком между прямым и обратным проходом; эти цифры предполагают полное шардирование ZeRO-{zero}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>KV-cache precision only matters for inference</source>
        <translation>точность кэша KV важна только для инференса</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>ZeRO stages shard training state; ignored for inference</source>
        <translation>стадии ZeRO шардируют состояние обучения; для инференса не учитываются</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>inference has no optimizer state to offload</source>
        <translation>при инференсе нет состояний оптимизатора, которые можно выгрузить</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>activation recompute only matters for training</source>
        <translation>пересчёт активаций важен только для обучения</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>sequence parallel has no effect without tensor parallel</source>
        <translation>параллелизм по последовательности без тензорного параллелизма ничего не даёт</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>selective recompute saves nothing more with flash attention (no score matrix is stored)</source>
        <translation>выборочный пересчёт активаций с FlashAttention ничего больше не экономит (матрица оценок внимания не хранится)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>in-flight micro-batches only apply to pipeline parallel; with pp 1 one micro-batch is live</source>
        <translation>одновременно обрабатываемые микробатчи бывают только при конвейерном параллелизме; при pp 1 в работе один микробатч</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>figures are for the first pipeline stage (stage {stage} of {stages}), the fullest</source>
        <translation>цифры даны для первой стадии конвейера (стадия {stage} из {stages}) — самой заполненной</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>figures are for the last pipeline stage (stage {stage} of {stages}), the fullest</source>
        <translation>цифры даны для последней стадии конвейера (стадия {stage} из {stages}) — самой заполненной</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>offload needs {host_bytes} of CPU RAM per GPU (optimizer offloaded to the host)</source>
        <translation>для выгрузки нужно {host_bytes} ОЗУ на каждый GPU (на хост выгружены состояния оптимизатора)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>offload needs {host_bytes} of CPU RAM per GPU (all offloaded to the host)</source>
        <translation>для выгрузки нужно {host_bytes} ОЗУ на каждый GPU (на хост выгружено всё)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>DeepSeek-V3 counted without its 14B multi-token-prediction module (671B main model)</source>
        <translation>DeepSeek-V3 посчитана без модуля предсказания нескольких токенов (14 млрд параметров; основная модель — 671 млрд)</translation>
    </message>
    <message>
        <location filename="../../desktop/error_templates.py" line="+32"/>
        <source>the memory headroom must be between 0 and {limit} of each GPU&apos;s memory, got {headroom}</source>
        <translation>запас памяти должен быть от 0 до {limit} памяти каждого GPU, а получено {headroom}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>nothing to plan on: {reasons}; choose a GPU of the catalog (gpu-advisor gpus lists them) or add this GPU as your own GPU type</source>
        <translation>не на чем планировать: {reasons}; выберите GPU из каталога (их перечисляет gpu-advisor gpus) или добавьте этот GPU как свой тип GPU</translation>
    </message>
    <message>
        <location line="+179"/>
        <source>gpu-probe printed nothing for {seconds} s and was stopped, with every process it started; nothing was saved: run it again, or run gpu-probe --progress by hand to see where it stops</source>
        <translation>gpu-probe ничего не выводил {seconds} с и был остановлен вместе со всеми процессами, которые он запустил; ничего не сохранено: запустите его снова или запустите gpu-probe --progress вручную, чтобы увидеть, где он останавливается</translation>
    </message>
    <message>
        <location line="+100"/>
        <source>{path} says it has database version {version}, which no GPU Advisor writes; it was left unchanged: restore it from a backup or choose another file with --db</source>
        <translation>В {path} указана версия базы данных {version}, которую GPU Advisor никогда не записывает; файл оставлен без изменений: восстановите его из резервной копии или выберите другой файл через --db</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{path} lacks the table {table} that database version {version} has (another tool changed it); it was left unchanged: restore it from a backup or choose another file with --db</source>
        <translation>В {path} нет таблицы {table}, которая есть в версии базы данных {version} (её изменила другая программа); файл оставлен без изменений: восстановите его из резервной копии или выберите другой файл через --db</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{path} lacks the column {column} of the table {table} that database version {version} has (another tool changed it); it was left unchanged: restore it from a backup or choose another file with --db</source>
        <translation>В {path} нет столбца {column} таблицы {table}, который есть в версии базы данных {version} (её изменила другая программа); файл оставлен без изменений: восстановите его из резервной копии или выберите другой файл через --db</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{path}: the column {column} of row {row} of the table {table} holds {found} where {expected} belongs (another tool wrote it); the file was left unchanged: correct or delete that row with an SQLite tool, e.g. sqlite3 {path} &quot;DELETE FROM {table} WHERE rowid = {row}&quot;, or choose another file with --db</source>
        <translation>{path}: в столбце {column} строки {row} таблицы {table} записано {found} вместо {expected} (это записала другая программа); файл оставлен без изменений: исправьте или удалите эту строку инструментом SQLite, например sqlite3 {path} &quot;DELETE FROM {table} WHERE rowid = {row}&quot;, или выберите другой файл через --db</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>{path}: the setting {key} holds a value GPU Advisor cannot read (another tool wrote it); the file was left unchanged: delete it with an SQLite tool, e.g. sqlite3 {path} &quot;DELETE FROM settings WHERE key = &apos;{key}&apos;&quot;, and set it again</source>
        <translation>{path}: в настройке {key} записано значение, которое GPU Advisor не может прочитать (это записала другая программа); файл оставлен без изменений: удалите её инструментом SQLite, например sqlite3 {path} &quot;DELETE FROM settings WHERE key = &apos;{key}&apos;&quot;, и задайте заново</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>cannot upgrade {path} from database version {version} ({detail}): it holds tables of another version; it was left unchanged: restore it from a backup or choose another file with --db</source>
        <translation>не удаётся обновить {path} с версии базы данных {version} ({detail}): в ней есть таблицы другой версии; файл оставлен без изменений: восстановите его из резервной копии или выберите другой файл через --db</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>{path} exists; it was left unchanged: add --force to replace it, or choose another name</source>
        <translation>{path} уже существует; файл оставлен без изменений: добавьте --force, чтобы заменить его, или выберите другое имя</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{folder} already holds {count} file(s) an export writes (such as {name}); they were left unchanged: add --force to replace them, or choose another folder</source>
        <translation>в {folder} уже есть файлы, которые пишет экспорт ({count}, например {name}); они оставлены без изменений: добавьте --force, чтобы заменить их, или выберите другую папку</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>{field} {value} is ambiguous: the comma may separate thousands or mark decimals; write 1000 or 1.000 (or 1,000.00)</source>
        <translation>{field} {value} неоднозначно: запятая может отделять тысячи или дробную часть; напишите 1000 или 1.000 (или 1,000.00)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{path}: {reason}</source>
        <translation>{path}: {reason}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>argument {position} ({text}) is not UTF-8 text; type it again in UTF-8 (or rename the file)</source>
        <translation>аргумент {position} ({text}) — не текст в UTF-8; введите его заново в UTF-8 (или переименуйте файл)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{option}=--: &apos;--&apos; cannot be the value of {option}; give another value</source>
        <translation>{option}=--: «--» не может быть значением {option}; укажите другое значение</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>a folder</source>
        <translation>папка</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>a FIFO (named pipe)</source>
        <translation>FIFO (именованный канал)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>a device</source>
        <translation>устройство</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>a socket</source>
        <translation>сокет</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>a special file</source>
        <translation>специальный файл</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{path} is {kind}, not a regular file; give the path of an ordinary file</source>
        <translation>{path} — {kind}, а не обычный файл; укажите путь к обычному файлу</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{path} is {size} bytes; the limit is {limit} bytes</source>
        <translation>{path}: {size} байт; предел — {limit} байт</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{path} is the database in use; choose another file for the export</source>
        <translation>{path} — используемая база данных; выберите для экспорта другой файл</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{path} is not a GPU Advisor database (it is not an SQLite file); it was left unchanged: check the --db path or choose another file</source>
        <translation>{path} — не база данных GPU Advisor (это не файл SQLite); файл не изменён: проверьте путь --db или выберите другой файл</translation>
    </message>
    <message>
        <location filename="../../desktop/message_templates.py" line="+4"/>
        <source>{parts}</source>
        <translation>{parts}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TP {degree}</source>
        <translation>TP {degree}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PP {degree}</source>
        <translation>PP {degree}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>EP {degree}</source>
        <translation>EP {degree}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DP {degree}</source>
        <translation>DP {degree}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>selective recompute</source>
        <translation>выборочный пересчёт активаций</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>full recompute</source>
        <translation>полный пересчёт активаций</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>micro-batch {micro_batch}</source>
        <translation>микробатч {micro_batch}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>task</source>
        <translation>задача</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>precision</source>
        <translation>точность</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>KV-cache precision</source>
        <translation>точность кэша KV</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>optimizer</source>
        <translation>оптимизатор</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>LoRA target</source>
        <translation>модуль для LoRA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>recompute mode</source>
        <translation>режим пересчёта активаций</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>offload mode</source>
        <translation>режим выгрузки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>runtime</source>
        <translation>среда выполнения</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ranking</source>
        <translation>критерий ранжирования</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>confidence</source>
        <translation>достоверность</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>calibration source</source>
        <translation>источник калибровки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>serving engine</source>
        <translation>движок инференса</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>weight format</source>
        <translation>формат весов</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>micro-batch</source>
        <translation>микробатч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>sequence length</source>
        <translation>длина последовательности</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>in-flight micro-batches</source>
        <translation>число одновременно обрабатываемых микробатчей</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>LoRA rank</source>
        <translation>ранг LoRA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a pinned strategy value</source>
        <translation>закреплённое значение стратегии</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the purchase price</source>
        <translation>цена покупки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the rent price</source>
        <translation>цена аренды</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>rent prices</source>
        <translation>цены аренды</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the spot rent price</source>
        <translation>цена аренды spot</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the reserved rent price</source>
        <translation>цена резервированной аренды</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the infrastructure overhead</source>
        <translation>доля затрат на инфраструктуру</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the power per GPU</source>
        <translation>мощность на GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PUE</source>
        <translation>PUE</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the electricity price</source>
        <translation>цена электроэнергии</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>hours per day</source>
        <translation>часы в день</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>days per week</source>
        <translation>дни в неделю</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>utilisation</source>
        <translation>загрузка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the resale fraction</source>
        <translation>доля цены при перепродаже</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>maintenance</source>
        <translation>обслуживание</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the spot overhead</source>
        <translation>надбавка за spot</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the spot interruption rate (reclaims per node-hour)</source>
        <translation>частота прерываний спотовых узлов (прерываний на узло-час)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the checkpoint write time</source>
        <translation>время записи контрольной точки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the restart time</source>
        <translation>время перезапуска</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the catalog&apos;s purchase price</source>
        <translation>цену покупки из каталога</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the default electricity price</source>
        <translation>цену электроэнергии по умолчанию</translation>
    </message>
    <message>
        <location filename="../../desktop/error_templates.py" line="+5"/>
        <source>unknown {what} {text}; choose one of: {choices}</source>
        <translation>неизвестное значение «{text}» ({what}); допустимые: {choices}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ZeRO stage must be 0, 1, 2 or 3, got {value}</source>
        <translation>стадия ZeRO должна быть 0, 1, 2 или 3, а получено {value}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{what} must be a whole number, got {value}</source>
        <translation>{what}: нужно целое число, а получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{what} must be positive, got {value}</source>
        <translation>{what}: нужно положительное число, а получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{what} must be a finite number, got {value}</source>
        <translation>{what}: нужно конечное число, а получено {value}</translation>
    </message>
    <message>
        <location line="-64"/>
        <location line="+65"/>
        <source>{what} {value} is absurdly large (limit {limit})</source>
        <translation>{what}: {value} — нелепо большое значение (предел {limit})</translation>
    </message>
    <message>
        <location line="-6"/>
        <source>the {runtime} runtime cannot run this layout: {reason}</source>
        <translation>среда выполнения {runtime} не может выполнить эту раскладку: {reason}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the {runtime} runtime cannot run {task} training: {reason}</source>
        <translation>среда выполнения {runtime} не может обучать {task}: {reason}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no runtime runs this training layout ({reasons})</source>
        <translation>ни одна среда выполнения не запускает эту схему обучения ({reasons})</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{what} must be a number, got {value}</source>
        <translation>{what}: нужно число, получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{what} is {chars} characters long; a number here has at most {limit}</source>
        <translation>{what}: длина {chars} символов; число здесь не длиннее {limit}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{what} must be from {low} to {high}, got {value}</source>
        <translation>{what}: допустимо от {low} до {high}, получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>dp x tp x pp = {gpus} GPUs is absurdly large (limit {limit})</source>
        <translation>dp × tp × pp = {gpus} GPU — нелепо много (предел {limit})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>tensor parallel {tp} does not divide the {heads} attention heads of {model}</source>
        <translation>тензорный параллелизм {tp} не делит {heads} голов внимания модели {model}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>tensor parallel {tp} does not divide the {kv_heads} KV heads of {model} (nor do the KV heads divide it, which would allow replicating them)</source>
        <translation>тензорный параллелизм {tp} не делит {kv_heads} голов KV модели {model} (и головы KV не делят его, иначе их можно было бы повторить)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>pipeline parallel {pp} is larger than the {layers} layers of {model}</source>
        <translation>конвейерный параллелизм {pp} больше числа слоёв модели {model} ({layers})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>expert parallel {ep} needs a mixture-of-experts model; {model} is dense</source>
        <translation>параллелизму по экспертам {ep} нужна модель со смесью экспертов; {model} — плотная модель</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>expert parallel {ep} does not divide the {experts} experts of {model}</source>
        <translation>параллелизм по экспертам {ep} не делит {experts} экспертов модели {model}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>expert parallel {ep} must divide dp x tp = {dp_tp} (expert-parallel ranks are carved out of the data- and tensor-parallel ranks)</source>
        <translation>параллелизм по экспертам {ep} должен делить dp × tp = {dp_tp} (ранги экспертов выделяются из рангов параллелизма по данным и тензорного)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>sequence length {seq_len} exceeds {model}&apos;s {context} learned positions</source>
        <translation>длина последовательности {seq_len} больше числа обученных позиций модели {model} ({context})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>full training in {precision} is not supported; use bf16/fp16/fp8/fp32, or --task qlora for a 4-bit base</source>
        <translation>полное обучение в {precision} не поддерживается; используйте bf16/fp16/fp8/fp32 или --task qlora для 4-битной базовой модели</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>LoRA needs at least one target module; choose from {choices}</source>
        <translation>для LoRA нужен хотя бы один модуль; выберите из: {choices}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{gpu} has no {dtype} throughput figure</source>
        <translation>для {gpu} нет данных о производительности в {dtype}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MFU must be between 0 and 1, got {mfu}</source>
        <translation>MFU должна быть от 0 до 1, а получено {mfu}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the bandwidth fraction must be between 0 and 1, got {fraction}</source>
        <translation>доля пропускной способности должна быть от 0 до 1, а получено {fraction}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the communication overlap must be between 0 and 1, got {overlap}</source>
        <translation>доля перекрытия обменов должна быть от 0 до 1, а получено {overlap}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the batch must be at least one sequence</source>
        <translation>в батче должна быть хотя бы одна последовательность</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{what} must not be negative</source>
        <translation>{what}: значение не может быть отрицательным</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>at {rate} reclaims per node-hour a job on {nodes} node(s) spends nearly all its time redoing lost work and restarting ({restart_s} each): spot cannot run it</source>
        <translation>при {rate} прерываниях на узло-час задача на узлах ({nodes}) почти всё время переделывает потерянную работу и перезапускается (по {restart_s}): на спотовых её не выполнить</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>--gpu needs a GPU id; see `gpu-advisor gpus`</source>
        <translation>для --gpu нужен идентификатор GPU; см. `gpu-advisor gpus`</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>give either --price-per-gpu-hour or --price-from-quotes, not both</source>
        <translation>укажите либо --price-per-gpu-hour, либо --price-from-quotes, но не оба сразу</translation>
    </message>
    <message>
        <location filename="../../desktop/message_templates.py" line="+2"/>
        <source>{gpu} alone</source>
        <translation>только {gpu}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the whole pool</source>
        <translation>весь пул</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the pipeline over the types</source>
        <translation>конвейер по типам</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>separate jobs</source>
        <translation>отдельные задачи</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{way} is the only way that fits</source>
        <translation>{way} — единственный способ, который помещается</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>nothing fits on any type of the pool</source>
        <translation>ни на одном типе из пула ничего не помещается</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{way} is the only way that fits; {kept}</source>
        <translation>{way} — единственный способ, который помещается; {kept}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{way} serves {ratio}x what {runner} does; {kept}</source>
        <translation>{way} обслуживает в {ratio} раза больше, чем {runner}; {kept}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>with its largest replica down it serves {tokens_per_s} tokens/s</source>
        <translation>без самой большой реплики обслуживает {tokens_per_s} токенов/с</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>with its largest replica down it serves {tokens_per_s} tokens/s, enough for the target</source>
        <translation>без самой большой реплики обслуживает {tokens_per_s} токенов/с, цель достигается</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>with its largest replica down it serves {tokens_per_s} tokens/s, short of the target</source>
        <translation>без самой большой реплики обслуживает {tokens_per_s} токенов/с, цель не достигается</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{way} is {speedup}x faster than {runner}: {why}</source>
        <translation>{way} в {speedup} раза быстрее, чем {runner}: {why}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{way} is {faster_percent}% faster than {runner}: {why}</source>
        <translation>{way} быстрее, чем {runner}, на {faster_percent}%: {why}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the extra GPUs bring more than the gradient sync at the slower pace costs</source>
        <translation>дополнительные GPU дают больше, чем стоит синхронизация градиентов в темпе более медленного типа</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>each type holds layers in proportion to its speed, so the slowest stage, the bubble ({bubble_percent}% of the step) and the sends between types cost less than the runner-up&apos;s losses</source>
        <translation>каждый тип держит слои пропорционально своей скорости, поэтому самая медленная ступень, пузырь ({bubble_percent}% шага) и передачи между типами стоят меньше, чем теряет второй по скорости способ</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>its GPUs run this job faster</source>
        <translation>его GPU выполняют эту задачу быстрее</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{stages} pipeline stages ({groups}) x dp {dp}, {microbatches} micro-batches per step: the slowest stage takes {pace_s} per micro-batch, the bubble {bubble_percent}% of the step, a send between types {boundary_send_s} at the slower link</source>
        <translation>ступеней конвейера: {stages} ({groups}) × dp {dp}, микробатчей на шаг: {microbatches}; самая медленная ступень тратит {pace_s} на микробатч, пузырь — {bubble_percent}% шага, передача между типами — {boundary_send_s} по более медленному каналу</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>each type runs its own job: together {aggregate_tokens_per_s} tokens/s, but one run goes at its own job&apos;s pace, {tokens_per_s} tokens/s on {gpu} alone; the other GPUs run other jobs</source>
        <translation>каждый тип выполняет свою задачу: вместе {aggregate_tokens_per_s} токенов/с, но один запуск идёт в темпе своей задачи, {tokens_per_s} токенов/с только на {gpu}; остальные GPU выполняют другие задачи</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no pipeline over the types: no tensor-parallel size and pipeline copies give every type a stage within {limit} stages</source>
        <translation>конвейера по типам нет: ни один размер тензорного параллелизма и число копий конвейера не дают каждому типу ступень в пределах {limit} ступеней</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no pipeline over the types fits: at best stage {stage} on {gpu} ({layers} layers) needs {need_bytes} per GPU, has {capacity_bytes} ({strategy})</source>
        <translation>ни один конвейер по типам не помещается: в лучшем случае ступени {stage} на {gpu} ({layers} слоёв) нужно {need_bytes} на GPU, есть {capacity_bytes} ({strategy})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no pipeline over the types: {refusal}</source>
        <translation>конвейера по типам нет: {refusal}</translation>
    </message>
    <message>
        <location filename="../../desktop/error_templates.py" line="+1"/>
        <source>nothing to export: no option fits</source>
        <translation>экспортировать нечего: ни один вариант не помещается</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cannot write the export to {directory}: {reason}</source>
        <translation>не удалось записать экспорт в {directory}: {reason}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>spot interruption rate, restart overhead and checkpoint interval must not be negative</source>
        <translation>частота прерываний spot, время перезапуска и интервал контрольных точек не могут быть отрицательными</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPU-hours and the price per GPU-hour must not be negative</source>
        <translation>GPU-часы и цена GPU-часа не могут быть отрицательными</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{gpus} GPUs is absurdly large (limit {limit})</source>
        <translation>{gpus} GPU — нелепо много (предел {limit})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the purchase price {price} is absurdly large (limit {limit})</source>
        <translation>цена покупки {price} нелепо велика (предел {limit})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the power per GPU must be between 0 and {limit} W (0 leaves electricity out), got {power} W</source>
        <translation>мощность на GPU должна быть от 0 до {limit} Вт (0 — не учитывать электроэнергию), а получено {power} Вт</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PUE must be between {low} and {high} (facility power / IT power), got {pue}</source>
        <translation>PUE должен быть от {low} до {high} (мощность объекта / мощность ИТ-оборудования), а получено {pue}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>hours per day must be between 0 and 24</source>
        <translation>часов в день должно быть от 0 до 24</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>days per week must be between 0 and 7</source>
        <translation>дней в неделю должно быть от 0 до 7</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>utilisation must be between 0 and 1 (for example 0.6)</source>
        <translation>загрузка должна быть от 0 до 1 (например, 0,6)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the horizon must be between 1 and 240 months</source>
        <translation>горизонт должен быть от 1 до 240 месяцев</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the resale fraction must be between 0 and 1</source>
        <translation>доля цены при перепродаже должна быть от 0 до 1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>hybrid owned GPUs must be between 0 and the number of GPUs</source>
        <translation>собственных GPU в гибридной схеме должно быть от 0 до общего числа GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>hybrid owned GPUs must be whole groups of {job_gpus} (the GPUs one job needs at once)</source>
        <translation>свои GPU в гибриде должны быть целыми группами по {job_gpus} (столько GPU одному заданию нужно одновременно)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a job of {job_gpus} GPUs must need between 1 and the {gpus} GPUs compared</source>
        <translation>задание на {job_gpus} GPU должно занимать от 1 до сравниваемых {gpus} GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the job&apos;s GPU-hours and its runs per month must be positive</source>
        <translation>GPU-часы задания и число его запусков в месяц должны быть положительными</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{runs} runs a month do not fit the schedule of {gpus} GPUs: at most {fit} do</source>
        <translation>{runs} запусков в месяц не помещаются в график {gpus} GPU: помещается не больше {fit}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>choose at least one GPU type, machine or quote to plan on</source>
        <translation>выберите хотя бы один тип GPU, машину или котировку для планирования</translation>
    </message>
    <message>
        <location filename="../../desktop/message_templates.py" line="+2"/>
        <source>{price}/GPU-h, set by you</source>
        <translation>{price}/GPU-ч, задано вами</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>your quote: {price}/GPU-h</source>
        <translation>ваша котировка: {price}/GPU-ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>reference quote: {price}/GPU-h</source>
        <translation>справочная котировка: {price}/GPU-ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>median of {count} of your quotes ({low} to {high}/GPU-h)</source>
        <translation>медиана ваших котировок: {count} шт. (от {low} до {high}/GPU-ч)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>median of {count} reference quotes ({low} to {high}/GPU-h)</source>
        <translation>медиана справочных котировок: {count} шт. (от {low} до {high}/GPU-ч)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{provider}, {quote_kind}: {price}/GPU-h, quoted {quoted_date}</source>
        <translation>{provider}, {quote_kind}: {price}/GPU-ч, котировка от {quoted_date}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>price for {gpu_id}: {source}</source>
        <translation>цена для {gpu_id}: {source}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no stored on-demand quote for {gpu_id}: no cost shown</source>
        <translation>нет сохранённой котировки по требованию для {gpu_id}: стоимость не показана</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>quote {quote_id} is no longer in the database</source>
        <translation>котировки {quote_id} больше нет в базе</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>probe run {run_id} is no longer in the database</source>
        <translation>замера {run_id} больше нет в базе</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>probe run {run_id} measured no GPU the catalog knows: it cannot plan</source>
        <translation>замер {run_id} не измерил ни одного GPU из каталога: по нему нельзя планировать</translation>
    </message>
    <message>
        <location filename="../../desktop/error_templates.py" line="+1"/>
        <source>optimizer offload needs ZeRO stage 1, 2 or 3 (DeepSpeed offload_optimizer)</source>
        <translation>для выгрузки оптимизатора нужна стадия ZeRO 1, 2 или 3 (offload_optimizer в DeepSpeed)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>offloading parameters needs ZeRO stage 3 / FSDP full shard (DeepSpeed offload_param)</source>
        <translation>для выгрузки параметров нужна стадия ZeRO 3 / полное шардирование FSDP (offload_param в DeepSpeed)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: {field} must be a positive integer, got {value}</source>
        <translation>{where}: {field} должно быть положительным целым числом, а получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: {field} must not be negative, got {value}</source>
        <translation>{where}: {field} не может быть отрицательным, а получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: {heads} attention heads are not a multiple of {kv_heads} KV heads</source>
        <translation>{where}: число голов внимания ({heads}) не кратно числу голов KV ({kv_heads})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: norm must be rmsnorm or layernorm, got {norm}</source>
        <translation>{where}: нормализация должна быть rmsnorm или layernorm, а получено {norm}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: experts_per_token must be between 1 and {experts}</source>
        <translation>{where}: experts_per_token должно быть от 1 до {experts}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: moe_ffn (expert intermediate size) must be positive</source>
        <translation>{where}: moe_ffn (промежуточный размер эксперта) должно быть положительным</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: dense_layers ({dense_layers}) must be fewer than layers ({layers})</source>
        <translation>{where}: плотных слоёв ({dense_layers}) должно быть меньше, чем всех слоёв ({layers})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: MLA needs positive v_head_dim and qk head dims</source>
        <translation>{where}: для MLA нужны положительные v_head_dim и размеры голов qk</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: layer_types lists {kinds} layers but the model has {layers}</source>
        <translation>{where}: в layer_types {kinds} слоёв, а в модели {layers}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{where}: layer kind {kind} is unknown or lacks its window</source>
        <translation>{where}: вид слоя {kind} неизвестен или у него нет окна</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: model_type {model_type} names its own code (auto_map); code from a model folder is never run, so this model cannot be read</source>
        <translation>{path}: model_type {model_type} ссылается на собственный код (auto_map); код из папки модели никогда не запускается, поэтому эту модель прочитать нельзя</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>unknown model preset {name}; presets: {presets}</source>
        <translation>неизвестная модель «{name}»; встроенные модели: {presets}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>model size must be a number of billions, got {billions}</source>
        <translation>размер модели должен быть числом миллиардов параметров, а получено {billions}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>model size {billions}B is outside {low}B..{high}B</source>
        <translation>размер модели {billions}B вне диапазона {low}B..{high}B</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>model size {billions}B is too small for a Llama-like shape</source>
        <translation>размер модели {billions}B слишком мал для архитектуры в духе Llama</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: missing key {key} (needed for model_type {model_type})</source>
        <translation>{path}: нет ключа {key} (он нужен для model_type {model_type})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: key {key} must be a positive integer, got {value}</source>
        <translation>{path}: ключ {key} должен быть положительным целым числом, а получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: key {key} must be true or false, got {value}</source>
        <translation>{path}: ключ {key} должен быть true или false, а получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: {size} bytes is too large for a config.json</source>
        <translation>{path}: {size} байт — слишком много для config.json</translation>
    </message>
    <message>
        <location line="-323"/>
        <source>{path}: no such file</source>
        <translation>{path}: файл не найден</translation>
    </message>
    <message>
        <location filename="../../desktop/message_templates.py" line="-21"/>
        <source>the pool&apos;s common layout and gradient sync at the slower pace cost more than its extra GPUs bring; the other GPUs stay free for separate jobs</source>
        <translation>общая раскладка пула и синхронизация градиентов в темпе более медленного типа стоят больше, чем дают его дополнительные GPU; остальные GPU остаются свободными для отдельных задач</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the pipeline&apos;s slowest stage, bubble and sends between types cost more than its extra GPUs bring; the other GPUs stay free for separate jobs</source>
        <translation>самая медленная ступень конвейера, пузырь и передачи между типами стоят больше, чем дают его дополнительные GPU; остальные GPU остаются свободными для отдельных задач</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{stages} x {gpu}, layers per stage: {layers}</source>
        <translation>{stages} × {gpu}, слоёв на ступень: {layers}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{stages} x {gpu}, layers per stage: {fewest}-{most}</source>
        <translation>{stages} × {gpu}, слоёв на ступень: {fewest}–{most}</translation>
    </message>
    <message>
        <location filename="../../desktop/error_templates.py" line="+324"/>
        <source>{path}: cannot read ({kind}: {reason})</source>
        <translation>{path}: не удалось прочитать ({kind}: {reason})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: malformed JSON ({reason} at line {line})</source>
        <translation>{path}: испорченный JSON ({reason}, строка {line})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: expected a JSON object, got {kind}</source>
        <translation>{path}: ожидался объект JSON, а получен {kind}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: missing key &apos;model_type&apos;</source>
        <translation>{path}: нет ключа «model_type»</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: model_type {model_type} is not supported; supported: {supported}</source>
        <translation>{path}: model_type {model_type} не поддерживается; поддерживаются: {supported}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: key &apos;mlp_only_layers&apos; must be a list of layer numbers</source>
        <translation>{path}: ключ «mlp_only_layers» должен быть списком номеров слоёв</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{where}: model size {billions}B parameters is outside {low}B..{high}B; check the sizes in the file</source>
        <translation>{where}: размер модели {billions}B параметров вне диапазона {low}B..{high}B; проверьте размеры в файле</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{model}: a trace builds the model from its config.json; give a config.json or a model folder</source>
        <translation>{model}: трассировка строит модель по её config.json; укажите config.json или папку модели</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a trace of {layers} decoder layers would take too long (about 1 s per layer); it runs at most {limit}, as deep as the deepest published model (Llama 3.1 405B: 126): use the analytic figures</source>
        <translation>трассировка {layers} слоёв декодера заняла бы слишком много времени (около 1 с на слой); трассируется не больше {limit}, столько же, сколько у самой глубокой опубликованной модели (Llama 3.1 405B: 126): используйте аналитические оценки</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>a trace runs pretrain, finetune, lora or inference, not {task} (QLoRA&apos;s 4-bit kernels need CUDA)</source>
        <translation>трассировка выполняет pretrain, finetune, lora или inference, но не {task} (4-битным ядрам QLoRA нужна CUDA)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a LoRA trace covers data, pipeline and expert parallel; LoRA is not traced under tensor parallel</source>
        <translation>трассировка LoRA охватывает параллелизм по данным, конвейерный и экспертный; под тензорным параллелизмом LoRA не трассируется</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the memory trace failed: {reason}</source>
        <translation>трассировка памяти не удалась: {reason}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: not a safetensors file (shorter than its 8-byte header length)</source>
        <translation>{path}: это не файл safetensors (он короче 8-байтовой длины заголовка)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: header length {header} bytes is absurd for a {size}-byte file</source>
        <translation>{path}: длина заголовка {header} байт нелепа для файла размером {size} байт</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: malformed safetensors header (not JSON)</source>
        <translation>{path}: испорченный заголовок safetensors (не JSON)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: malformed safetensors header (not a JSON object)</source>
        <translation>{path}: испорченный заголовок safetensors (не объект JSON)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: tensor {tensor} has no valid &apos;shape&apos; in the header</source>
        <translation>{path}: у тензора {tensor} в заголовке нет правильного «shape»</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path}: not a folder</source>
        <translation>{path}: это не папка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no GPU given; see `gpu-advisor gpus` for the ids</source>
        <translation>GPU не указан; идентификаторы — в `gpu-advisor gpus`</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unknown GPU {text}; see `gpu-advisor gpus`</source>
        <translation>неизвестный GPU «{text}»; см. `gpu-advisor gpus`</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unknown GPU {text} (did you mean: {ids}?); see `gpu-advisor gpus`</source>
        <translation>неизвестный GPU «{text}» (может быть, {ids}?); см. `gpu-advisor gpus`</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a GPU type needs a positive memory size and memory bandwidth</source>
        <translation>для типа GPU нужны положительные объём и пропускная способность памяти</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unknown dtype(s) {dtypes} in TFLOPS; use {choices}</source>
        <translation>неизвестные типы данных {dtypes} в TFLOPS; допустимые: {choices}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a GPU type needs at least one TFLOPS figure (for example bf16)</source>
        <translation>для типа GPU нужна хотя бы одна цифра TFLOPS (например, для bf16)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{code} is not a currency code; use a 3-letter code such as USD, EUR or RUB</source>
        <translation>«{code}» — не код валюты; используйте трёхбуквенный код, например USD, EUR или RUB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cannot add {other} to {currency} without converting first</source>
        <translation>нельзя сложить {other} и {currency} без пересчёта по курсу</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the exchange rate for {code} must be a positive number, got {rate}</source>
        <translation>курс {code} должен быть положительным числом, а получено {rate}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no exchange rate for USD-&gt;{currency} to convert {what}; set one in Settings (or give {flag} in {currency})</source>
        <translation>нет курса USD-&gt;{currency}, чтобы пересчитать {what}; задайте его в настройках (или укажите {flag} в {currency})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>give --purchase-per-gpu: the catalog has no reference price for {gpu}</source>
        <translation>укажите --purchase-per-gpu: в каталоге нет справочной цены для {gpu}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>--years must be at least one month (0.1)</source>
        <translation>--years должно быть не меньше месяца (0,1)</translation>
    </message>
    <message>
        <location line="-511"/>
        <source>sequence length and batch must be at least 1</source>
        <translation>длина последовательности и батч должны быть не меньше 1</translation>
    </message>
    <message>
        <location filename="../../desktop/message_templates.py" line="-256"/>
        <source>Nothing fits on {upto} x {gpu} ({capacity_bytes} each). Try: {ideas}.</source>
        <translation>Ничего не помещается: {upto} × {gpu} ({capacity_bytes} на каждом). Попробуйте: {ideas}.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Nothing fits on {upto} x {gpu} ({capacity_bytes} each): the lightest layout ({strategy}) still needs {need_bytes} per GPU. Try: {ideas}.</source>
        <translation>Ничего не помещается: {upto} × {gpu} ({capacity_bytes} на каждом); даже самой лёгкой раскладке ({strategy}) нужно {need_bytes} на GPU. Попробуйте: {ideas}.</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>more GPUs</source>
        <translation>больше GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ZeRO-3 with CPU offload</source>
        <translation>ZeRO-3 с выгрузкой на CPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>LoRA or QLoRA instead of full training</source>
        <translation>LoRA или QLoRA вместо полного обучения</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>QLoRA (a 4-bit base model) instead of LoRA</source>
        <translation>QLoRA (4-битная базовая модель) вместо LoRA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a shorter sequence</source>
        <translation>более короткую последовательность</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a GPU with more memory</source>
        <translation>GPU с большим объёмом памяти</translation>
    </message>
    <message>
        <location line="+68"/>
        <source>MISSES THE TARGETS: {missed}</source>
        <translation>НЕ ВЫПОЛНЯЕТ ЦЕЛИ: {missed}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{request_rate} requests/s overload it: requests arrive faster than its replicas finish them</source>
        <translation>{request_rate} запросов/с перегружают его: запросы приходят быстрее, чем реплики их завершают</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>TTFT p90 {ttft_s} against the {target_s} target</source>
        <translation>TTFT p90 {ttft_s} при цели {target_s}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TPOT {tpot_s} against the {target_s} target</source>
        <translation>TPOT {tpot_s} при цели {target_s}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>No option meets the targets within {limit} GPUs: the closest are shown, closest first, each marked with what it misses.</source>
        <translation>Ни один вариант в пределах {limit} GPU не выполняет цели: показаны ближайшие, сначала самые близкие, у каждого указано, что он не выполняет.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>What would meet them: {gpus} x {gpu}, {replicas} replica(s) of TP {tp} x PP {pp} (planned and checked: TTFT p90 {ttft_s}, TPOT {tpot_s}, {tokens_per_s} tokens/s).</source>
        <translation>Цели выполнит: {gpus} x {gpu}, реплик: {replicas}, каждая TP {tp} x PP {pp} (спланировано и проверено: TTFT p90 {ttft_s}, TPOT {tpot_s}, {tokens_per_s} токенов/с).</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No number of GPUs meets them on {gpu}: the closest, TP {tp} x PP {pp}, reaches TTFT p90 {ttft_s} and TPOT {tpot_s}; a faster GPU, a smaller or quantised model, a shorter prompt or looser targets would be needed.</source>
        <translation>Никакое число {gpu} не выполняет цели: ближайший вариант, TP {tp} x PP {pp}, даёт TTFT p90 {ttft_s} и TPOT {tpot_s}; нужен более быстрый GPU, меньшая или квантованная модель, более короткий промпт или менее строгие цели.</translation>
    </message>
    <message>
        <location filename="../../desktop/error_templates.py" line="+3"/>
        <source>the number of tokens must be positive</source>
        <translation>число токенов должно быть больше нуля</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the tokens-per-second target must be positive</source>
        <translation>целевая скорость (токенов/с) должна быть больше нуля</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>concurrent users must be at least 1</source>
        <translation>одновременных пользователей должно быть не меньше 1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>give concurrent users or a request rate, not both</source>
        <translation>укажите число одновременных пользователей или частоту запросов, но не то и другое</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the output length ({output_len}) must be shorter than the sequence length ({seq_len})</source>
        <translation>длина ответа ({output_len}) должна быть меньше длины последовательности ({seq_len})</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the number of GPUs must be at least 1</source>
        <translation>число GPU должно быть не меньше 1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the maximum number of GPUs must be at least 1</source>
        <translation>максимальное число GPU должно быть не меньше 1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the deadline must be positive</source>
        <translation>срок должен быть больше нуля</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>cannot pin {fields}; pin one of: {choices}</source>
        <translation>нельзя закрепить {fields}; закрепить можно: {choices}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>--top must be at least 1</source>
        <translation>--top должен быть не меньше 1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>choose at least one GPU type</source>
        <translation>выберите хотя бы один тип GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the budget is in {budget_currency} but prices are in {price_currency}; convert first</source>
        <translation>бюджет задан в {budget_currency}, а цены — в {price_currency}; сначала пересчитайте в одну валюту</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>no model given: name a preset, a size such as 7b, a config.json or a model folder</source>
        <translation>модель не задана: укажите пресет, размер (например, 7b), config.json или папку модели</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>no such file or folder: {path}</source>
        <translation>нет такого файла или папки: {path}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no such file or folder: {path} (a Hugging Face model id? GPU Advisor works offline: download its config.json and give its path)</source>
        <translation>нет такого файла или папки: {path} (это идентификатор модели на Hugging Face? GPU Advisor работает без сети: скачайте её config.json и укажите путь к нему)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>unknown model {text}: not a preset ({presets}), a size such as 7b, a config.json or a model folder</source>
        <translation>неизвестная модель {text}: это не пресет ({presets}), не размер (например, 7b), не config.json и не папка модели</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>no exchange rate for {source}-&gt;{target}; set one in Settings</source>
        <translation>нет курса {source} → {target}: задайте его в «Настройках» (Курсы валют)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>rental quote</source>
        <translation>предложение аренды</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>purchase quote</source>
        <translation>предложение покупки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>rental quotes</source>
        <translation>предложений аренды</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>purchase quotes</source>
        <translation>предложений покупки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>gpu: unknown GPU &apos;{text}&apos; (did you mean {hint}?)</source>
        <translation>gpu: неизвестный GPU «{text}» (может быть, {hint}?)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>gpu: {reason}</source>
        <translation>gpu: {reason}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{field} must be a number, got {value}</source>
        <translation>{field}: нужно число, получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{field} must be a finite number, got {value}</source>
        <translation>{field}: нужно конечное число, получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{field} must be &gt; 0</source>
        <translation>{field}: значение должно быть больше 0</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{field} must be &gt;= 0</source>
        <translation>{field}: значение не может быть отрицательным</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{field} must be at most {limit}, got {value}</source>
        <translation>{field}: не больше {limit}, получено {value}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{field} must be at most {limit} W, got {value}</source>
        <translation>{field}: не больше {limit} Вт, получено {value}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{field} must be at most {limit} ({per_gpu_limit} per GPU), got {value}</source>
        <translation>{field}: не больше {limit} ({per_gpu_limit} на GPU), получено {value}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{field} must be a whole number between 1 and {limit}, got {value}</source>
        <translation>{field}: нужно целое число от 1 до {limit}, получено {value}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{field} must be a date YYYY-MM-DD, got &apos;{value}&apos;</source>
        <translation>{field}: нужна дата ГГГГ-ММ-ДД, получено «{value}»</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{field} must be a date YYYY-MM-DD (it is empty)</source>
        <translation>{field}: нужна дата ГГГГ-ММ-ДД (поле пустое)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>currency must be one of {choices} or another 3-letter ISO code, got &apos;{value}&apos;</source>
        <translation>валюта: одна из {choices} или другой трёхбуквенный код ISO, получено «{value}»</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>currency is required ({choices} or another 3-letter ISO code)</source>
        <translation>валюта обязательна ({choices} или другой трёхбуквенный код ISO)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{field} must be one of {choices}, got &apos;{value}&apos;</source>
        <translation>{field}: одно из значений {choices}, получено «{value}»</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{field} must be one of {choices} or empty, got &apos;{value}&apos;</source>
        <translation>{field}: одно из значений {choices} или пусто, получено «{value}»</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{field} is longer than {limit} characters</source>
        <translation>{field}: длиннее {limit} символов</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{field} is required</source>
        <translation>{field}: обязательное поле</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>price_per_gpu_hour or price_per_instance_hour is required</source>
        <translation>нужна цена за GPU-час (price_per_gpu_hour) или за час инстанса (price_per_instance_hour)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>price_per_instance_hour {per_instance} does not match price_per_gpu_hour {per_gpu} x {gpus} GPUs = {expected} (they must agree within 1%)</source>
        <translation>цена за час инстанса {per_instance} не совпадает с ценой за GPU-час {per_gpu} × {gpus} GPU = {expected} (расхождение допускается не больше 1 %)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{field} works out to {price}, which is not a usable price</source>
        <translation>{field} получается равной {price}, такой цены не бывает</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>valid_until must not be before quoted_on</source>
        <translation>дата окончания (valid_until) не может быть раньше даты предложения (quoted_on)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>server_overhead_fraction must be between 0 and 10 (0.3 means +30%)</source>
        <translation>доля расходов на сервер (server_overhead_fraction) должна быть от 0 до 10 (0,3 — это +30 %)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>the exchange rate must be a number &gt; 0</source>
        <translation>курс должен быть числом больше 0</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{cells} cells but the header has {columns} columns</source>
        <translation>ячеек: {cells}, а в заголовке столбцов: {columns}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>duplicate of row {row}</source>
        <translation>повтор строки {row}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>duplicate of {label} #{quote_id}</source>
        <translation>повтор: {label} № {quote_id}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>missing columns: {columns}</source>
        <translation>нет столбцов: {columns}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unknown columns: {columns}</source>
        <translation>неизвестные столбцы: {columns}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>repeated columns: {columns}</source>
        <translation>повторяющиеся столбцы: {columns}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>missing columns: price_per_gpu_hour or price_per_instance_hour</source>
        <translation>нет столбцов: price_per_gpu_hour или price_per_instance_hour</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{name}: {problems} (expected columns: {columns})</source>
        <translation>{name}: {problems} (ожидаются столбцы: {columns})</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{name} is empty: expected a header row naming the columns {columns}</source>
        <translation>{name} пуст: нужна строка заголовка со столбцами {columns}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{name}: not a readable CSV file near line {line}: {detail}</source>
        <translation>{name}: не удаётся прочитать как CSV около строки {line}: {detail}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{name} has a header but no {quotes}</source>
        <translation>в {name} есть заголовок, но нет {quotes}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path} is a folder, not a CSV file</source>
        <translation>{path} — папка, а не файл CSV</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{name} is {size} bytes; the limit for a quote file is {limit} bytes</source>
        <translation>размер {name} — {size} байт; для файла предложений предел {limit} байт</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{name} is not UTF-8 text (byte {byte} on line {line}); save it as &apos;CSV UTF-8&apos; and import it again</source>
        <translation>{name} — не текст в UTF-8 (байт {byte} в строке {line}); сохраните его как «CSV UTF-8» и импортируйте снова</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>{path}: cannot read it ({reason})</source>
        <translation>{path}: не удаётся прочитать ({reason})</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cannot write {path}: {reason}</source>
        <translation>не удаётся записать {path}: {reason}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{file} refused: {bad} bad row(s) of {total}; nothing was imported (fix them, or use --skip-invalid to import the {good} good row(s)); row 1 is the header</source>
        <translation>{file} отклонён: ошибочных строк {bad} из {total}; ничего не импортировано (исправьте их или импортируйте {good} верных строк с --skip-invalid); строка 1 — заголовок</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>cannot store the {label}: {reasons}</source>
        <translation>не удаётся сохранить {label}: {reasons}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>this {label} is already stored as #{quote_id}</source>
        <translation>такое {label} уже сохранено под № {quote_id}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>there is no {label} #{quote_id}</source>
        <translation>нет записи «{label}» № {quote_id}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unknown {label} fields: {fields}</source>
        <translation>неизвестные поля ({label}): {fields}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>this change would make {label} #{quote_id} the same as #{existing}</source>
        <translation>после этого изменения {label} № {quote_id} совпадёт с № {existing}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{label} #{quote_id} is a reference price shipped with GPU Advisor ({who}, {quoted_on}); reference rows can&apos;t be edited (hide them with --mine)</source>
        <translation>{label} № {quote_id} — справочная цена из поставки GPU Advisor ({who}, {quoted_on}); справочные строки нельзя изменять (скрыть их можно фильтром «только мои»)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{label} #{quote_id} is a reference price shipped with GPU Advisor ({who}, {quoted_on}); reference rows can&apos;t be deleted (hide them with --mine)</source>
        <translation>{label} № {quote_id} — справочная цена из поставки GPU Advisor ({who}, {quoted_on}); справочные строки нельзя удалять (скрыть их можно фильтром «только мои»)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>the machine label is {length} characters; the limit is {limit}</source>
        <translation>название машины длиной {length} символов; предел — {limit}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>this probe report is already stored as run #{run_id}</source>
        <translation>этот отчёт замера уже сохранён как замер № {run_id}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>there is no probe run #{run_id}</source>
        <translation>нет замера № {run_id}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not a usable probe report: {detail}</source>
        <translation>отчёт замера не подходит: {detail}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cannot start gpu-probe ({command}): {reason}</source>
        <translation>не удаётся запустить gpu-probe ({command}): {reason}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>gpu-probe failed with exit code {exit_code}; nothing was saved</source>
        <translation>gpu-probe завершился с кодом {exit_code}; ничего не сохранено</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>gpu-probe finished without writing a report; nothing was saved</source>
        <translation>gpu-probe завершился, не записав отчёт; ничего не сохранено</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>cannot write {path}: it is a folder</source>
        <translation>не удаётся записать {path}: это папка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cannot write {path}: no such folder {folder}</source>
        <translation>не удаётся записать {path}: нет папки {folder}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>a saved plan needs a name</source>
        <translation>у сохранённого плана должно быть название</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a plan name is limited to {limit} characters</source>
        <translation>название плана — не длиннее {limit} символов</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>there is no saved plan #{plan_id}</source>
        <translation>нет сохранённого плана № {plan_id}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{reasons}</source>
        <translation>{reasons}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a GPU type needs an id, e.g. &apos;my-rtx-5090&apos;</source>
        <translation>у типа GPU должен быть идентификатор, например «my-rtx-5090»</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{gpu_id} is already in the GPU catalog; choose another id for your GPU type</source>
        <translation>{gpu_id} уже есть в каталоге GPU; выберите для своего типа GPU другой идентификатор</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>you already have a GPU type {gpu_id}</source>
        <translation>у вас уже есть тип GPU {gpu_id}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>there is no user GPU type {gpu_id}</source>
        <translation>нет пользовательского типа GPU {gpu_id}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unknown GPU type fields: {fields}</source>
        <translation>неизвестные поля типа GPU: {fields}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>incomplete GPU type: {detail}</source>
        <translation>тип GPU описан не полностью: {detail}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path} is a folder; give the database file&apos;s path</source>
        <translation>{path} — папка; укажите путь к файлу базы данных</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>cannot create the folder {folder}: {reason}</source>
        <translation>не удаётся создать папку {folder}: {reason}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>cannot read the database {path}: {reason}</source>
        <translation>не удаётся прочитать базу данных {path}: {reason}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cannot use the database {path}: {reason}; choose another file with --db</source>
        <translation>не удаётся использовать базу данных {path}: {reason}; выберите другой файл (--db)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{path} is not a usable database and could not be moved aside ({reason}); choose another database file (--db PATH on the command line)</source>
        <translation>{path} — непригодная база данных, и её не удалось отложить в сторону ({reason}); выберите другой файл базы данных (--db ПУТЬ в командной строке)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{path} was written by a newer GPU Advisor (database version {version}; this one reads up to {latest}); it was left unchanged: update GPU Advisor or choose another file with --db</source>
        <translation>{path} записан более новой версией GPU Advisor (версия базы {version}; эта версия читает до {latest}); файл не изменён: обновите GPU Advisor или выберите другой файл (--db)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{path} is an SQLite database of another program; it was left unchanged: choose another file with --db</source>
        <translation>{path} — база данных SQLite другой программы; файл не изменён: выберите другой файл (--db)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>cannot write the database {path}: the disk is full ({detail}); free some space and try again</source>
        <translation>не удаётся записать базу данных {path}: диск заполнен ({detail}); освободите место и повторите</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>cannot write the database {path}: the file or its folder is read-only ({detail}); choose a writable file with --db</source>
        <translation>не удаётся записать базу данных {path}: файл или его папка доступны только для чтения ({detail}); выберите файл, доступный для записи (--db)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>cannot open the database {path} ({detail}); check that its folder exists and may be written, or choose another file with --db</source>
        <translation>не удаётся открыть базу данных {path} ({detail}); проверьте, что её папка существует и доступна для записи, или выберите другой файл (--db)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>the database {path} is damaged ({detail}); start GPU Advisor again to move it aside and begin a fresh one</source>
        <translation>база данных {path} повреждена ({detail}); перезапустите GPU Advisor: он отложит её в сторону и создаст новую</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>the database {path} is locked by another program ({detail}); try again when it has finished</source>
        <translation>база данных {path} заблокирована другой программой ({detail}); повторите, когда она закончит</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>the database {path} is busy: another GPU Advisor window or command has been writing to it for over {waited_s}; try again when it has finished</source>
        <translation>база данных {path} занята: другое окно или команда GPU Advisor пишет в неё уже больше {waited_s}; повторите, когда запись закончится</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>cannot use the database {path}: the system reported an error ({detail})</source>
        <translation>не удаётся использовать базу данных {path}: система сообщила об ошибке ({detail})</translation>
    </message>
</context>
<context>
    <name>Plurals</name>
    <message numerus="yes">
        <location filename="../../desktop/plurals.py" line="+25"/>
        <source>%n published run(s)</source>
        <translation>
            <numerusform>%n опубликованный замер</numerusform>
            <numerusform>%n опубликованных замера</numerusform>
            <numerusform>%n опубликованных замеров</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>%n accumulation step(s)</source>
        <translation>
            <numerusform>%n шаг накопления</numerusform>
            <numerusform>%n шага накопления</numerusform>
            <numerusform>%n шагов накопления</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>up to %n user(s) decoded together on each replica</source>
        <translation>
            <numerusform>до %n пользователя одновременно на каждой реплике</numerusform>
            <numerusform>до %n пользователей одновременно на каждой реплике</numerusform>
            <numerusform>до %n пользователей одновременно на каждой реплике</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>adding %n quote(s)</source>
        <translation>
            <numerusform>добавление %n котировки</numerusform>
            <numerusform>добавление %n котировок</numerusform>
            <numerusform>добавление %n котировок</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>deleting %n quote(s)</source>
        <translation>
            <numerusform>удаление %n котировки</numerusform>
            <numerusform>удаление %n котировок</numerusform>
            <numerusform>удаление %n котировок</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>%n GPU</numerusform>
            <numerusform>%n GPU</numerusform>
            <numerusform>%n GPU</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>%Ln node(s)</source>
        <translation>
            <numerusform>%Ln узел</numerusform>
            <numerusform>%Ln узла</numerusform>
            <numerusform>%Ln узлов</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>&lt;b&gt;{0} is cheapest&lt;/b&gt; over {1} years for %n {2} GPU(s) at {3} utilisation, {4} h/day: {5}.</source>
        <translation>
            <numerusform>&lt;b&gt;{0} — дешевле всего&lt;/b&gt; на горизонте {1} г. для %n {2} при загрузке {3} и {4} ч/сут: {5}.</numerusform>
            <numerusform>&lt;b&gt;{0} — дешевле всего&lt;/b&gt; на горизонте {1} г. для %n {2} при загрузке {3} и {4} ч/сут: {5}.</numerusform>
            <numerusform>&lt;b&gt;{0} — дешевле всего&lt;/b&gt; на горизонте {1} г. для %n {2} при загрузке {3} и {4} ч/сут: {5}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>Spot: {0} reclaims per node-hour ({1}) on %n node(s) add {2} hours for work lost since the last checkpoint and restarts.</source>
        <translation>
            <numerusform>Спотовые: {0} прерываний на узло-час ({1}) на %n узле добавляют {2} часов на работу, потерянную с последней контрольной точки, и перезапуски.</numerusform>
            <numerusform>Спотовые: {0} прерываний на узло-час ({1}) на %n узлах добавляют {2} часов на работу, потерянную с последней контрольной точки, и перезапуски.</numerusform>
            <numerusform>Спотовые: {0} прерываний на узло-час ({1}) на %n узлах добавляют {2} часов на работу, потерянную с последней контрольной точки, и перезапуски.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+6"/>
        <source>spot pays for jobs up to %n node(s) of {0} GPUs and stops paying above (each reclaimed node stops the whole job).</source>
        <translation>
            <numerusform>спотовые выгодны для задач до %n узла по {0} GPU и невыгодны для больших (каждый отозванный узел останавливает всю задачу).</numerusform>
            <numerusform>спотовые выгодны для задач до %n узлов по {0} GPU и невыгодны для больших (каждый отозванный узел останавливает всю задачу).</numerusform>
            <numerusform>спотовые выгодны для задач до %n узлов по {0} GPU и невыгодны для больших (каждый отозванный узел останавливает всю задачу).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>Exported %n file(s) to {0}</source>
        <translation>
            <numerusform>Экспортирован %n файл в {0}</numerusform>
            <numerusform>Экспортировано %n файла в {0}</numerusform>
            <numerusform>Экспортировано %n файлов в {0}</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PoolChoicesModel</name>
    <message>
        <location filename="../../desktop/qmodels/pool_choices.py" line="+29"/>
        <source>Way</source>
        <translation>Способ</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TP × PP</source>
        <translation>TP × PP</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tokens/s</source>
        <translation>Токенов/с</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Effective
time</source>
        <translation>Полезное
время</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Run time
with losses</source>
        <translation>Время
с потерями</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cost
with losses</source>
        <translation>Стоимость
с потерями</translation>
    </message>
</context>
<context>
    <name>PoolPanel</name>
    <message>
        <location filename="../../desktop/pages/plan_scale_inputs.py" line="+342"/>
        <source>Mixed pool</source>
        <translation>Смешанный пул</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add a GPU type</source>
        <translation>Добавить тип GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add a row: a GPU type and how many of it the pool has</source>
        <translation>Добавить строку: тип GPU и сколько их в пуле</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>What you have or can rent, say 64 × A100 80GB + 32 × H100: each type alone is compared with the whole pool as one job (the Mixed pool tab on the right). A type at 0 is left out.</source>
        <translation>Что у вас есть или что можно арендовать, например 64 × A100 80GB + 32 × H100: каждый тип по отдельности сравнивается со всем пулом как одним заданием (вкладка «Смешанный пул» справа). Тип с числом 0 не учитывается.</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Remove</source>
        <translation>Убрать</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+1"/>
        <source>Remove {0} from the pool</source>
        <translation>Убрать {0} из пула</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>How many {0} the pool has (a whole number, 0 or more)</source>
        <translation>Сколько {0} в пуле (целое число, 0 или больше)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Count of {0}</source>
        <translation>Число {0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPU type of this row</source>
        <translation>Тип GPU этой строки</translation>
    </message>
    <message>
        <location line="+57"/>
        <source>{0}: “{1}”</source>
        <translation>{0}: «{1}»</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>A count is a whole number of GPUs from 0 to {0}; fix {1}. The plan keeps the last valid pool meanwhile.</source>
        <translation>Число GPU — целое, от 0 до {0}; исправьте {1}. Пока план считается по последнему верному пулу.</translation>
    </message>
</context>
<context>
    <name>PoolView</name>
    <message>
        <location filename="../../desktop/pages/plan_results.py" line="+147"/>
        <source>No mixed pool: in Expert mode, add GPU types and their counts under Mixed pool to compare each type alone with the whole pool as one job, a pipeline over the types and separate jobs.</source>
        <translation>Смешанного пула нет: в режиме «Эксперт» добавьте типы GPU и их число в разделе «Смешанный пул», чтобы сравнить каждый тип по отдельности со всем пулом как одним заданием, конвейером по типам и отдельными задачами.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The pool cannot be planned:</source>
        <translation>Пул спланировать нельзя:</translation>
    </message>
</context>
<context>
    <name>PriceChart</name>
    <message>
        <location filename="../../desktop/charts/price_chart.py" line="+71"/>
        <source>your quotes</source>
        <translation>ваши котировки</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>reference prices (dated)</source>
        <translation>справочные цены (с датой)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Price per GPU-hour by GPU model ({0})</source>
        <translation>Цена GPU-часа по моделям GPU ({0})</translation>
    </message>
    <message>
        <location line="+4"/>
        <source> — {0} without an exchange rate left out</source>
        <translation> — без курса валюты пропущено: {0}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source> — {0} quotes, busy GPU models drawn as price quantiles</source>
        <translation> — котировок: {0}; для моделей GPU с множеством котировок показаны квантили цены</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{0} per GPU-hour</source>
        <translation>{0} за GPU-час</translation>
    </message>
</context>
<context>
    <name>ProbeCommand</name>
    <message>
        <location filename="../../desktop/probe_command.py" line="+37"/>
        <source>This build of GPU Advisor (the lite bundle) does not include torch, so it cannot run the probe here.
To measure this machine, use the full bundle&apos;s gpu-probe, or install the probe with Python:
    pip install &apos;gpu-advisor[probe]&apos;
    gpu-probe --quick --json report.json
then import report.json with File &gt; Import probe report. Planning, GPU detection and report import work in this build.</source>
        <translation>В эту сборку GPU Advisor (облегчённую) не входит torch, поэтому запустить замер здесь нельзя.
Чтобы измерить эту машину, воспользуйтесь gpu-probe из полной сборки или установите замер через Python:
    pip install &apos;gpu-advisor[probe]&apos;
    gpu-probe --quick --json report.json
а затем импортируйте report.json через Файл &gt; Импорт отчёта замера. Планирование, обнаружение GPU и импорт отчётов в этой сборке работают.</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>torch is not installed in this Python environment, so the probe cannot run here.
Install it with: pip install &apos;gpu-advisor[probe]&apos; (or run gpu-probe on another machine and import its report with File &gt; Import probe report).</source>
        <translation>В этом окружении Python не установлен torch, поэтому запустить замер здесь нельзя.
Установите его: pip install &apos;gpu-advisor[probe]&apos; (или запустите gpu-probe на другой машине и импортируйте его отчёт через Файл &gt; Импорт отчёта замера).</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>the bundled probe is missing: {0}</source>
        <translation>в сборке не найден gpu-probe: {0}</translation>
    </message>
</context>
<context>
    <name>ProbeHistoryModel</name>
    <message>
        <location filename="../../desktop/qmodels/probe_history.py" line="+28"/>
        <source>Date</source>
        <translation>Дата</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Machine</source>
        <translation>Машина</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Source</source>
        <translation>Источник</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Devices</source>
        <translation>Устройства</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Mode</source>
        <translation>Режим</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory bandwidth</source>
        <translation>Пропускная способность памяти</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+2"/>
        <source>% of spec</source>
        <translation>% от паспорта</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>bf16 matmul</source>
        <translation>Умножение матриц bf16</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>this machine</source>
        <translation>эта машина</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>imported</source>
        <translation>импортирован</translation>
    </message>
    <message>
        <location line="+145"/>
        <source>against {0}</source>
        <translation>относительно {0}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>a CPU or an unknown GPU: no datasheet figure to compare with</source>
        <translation>CPU или неизвестный GPU: не с чем сравнить по паспорту</translation>
    </message>
</context>
<context>
    <name>ProbeResultsModel</name>
    <message>
        <location filename="../../desktop/qmodels/probe_results.py" line="+30"/>
        <source>memory (read + write)</source>
        <translation>память (чтение + запись)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>host → device</source>
        <translation>хост → устройство</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>device → host</source>
        <translation>устройство → хост</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>peer copy</source>
        <translation>копирование между GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+62"/>
        <source>matmul</source>
        <translation>умножение матриц</translation>
    </message>
    <message>
        <location line="-59"/>
        <source>Device</source>
        <translation>Устройство</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Measurement</source>
        <translation>Измерение</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Measured</source>
        <translation>Измерено</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Spec</source>
        <translation>Паспорт</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>% of spec</source>
        <translation>% от паспорта</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>memory</source>
        <translation>память</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>host→dev</source>
        <translation>хост→устр.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>dev→host</source>
        <translation>устр.→хост</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>peer</source>
        <translation>между GPU</translation>
    </message>
    <message>
        <location line="+94"/>
        <location line="+9"/>
        <source>failed</source>
        <translation>ошибка</translation>
    </message>
</context>
<context>
    <name>ProbeSpecChart</name>
    <message>
        <location filename="../../desktop/charts/probe_chart.py" line="+58"/>
        <source>Measured as % of the catalog spec</source>
        <translation>Измерено, в % от паспортных данных</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>% of spec</source>
        <translation>% от паспорта</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>No measurements yet. “Run quick probe” measures this machine (matrix multiply, memory bandwidth) in about a minute; each result appears here as a share of its catalog spec.</source>
        <translation>Замеров пока нет. «Быстрый замер» примерно за минуту измерит эту машину (умножение матриц, пропускная способность памяти); каждый результат появится здесь как доля от паспортного значения.</translation>
    </message>
</context>
<context>
    <name>QuoteCommands</name>
    <message>
        <location filename="../../desktop/undo.py" line="+77"/>
        <source>a quote</source>
        <translation>котировки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>edit of {0}</source>
        <translation>правку: {0}</translation>
    </message>
</context>
<context>
    <name>QuoteDraftDialog</name>
    <message>
        <location filename="../../desktop/pages/quote_draft.py" line="+54"/>
        <source>New rental quote</source>
        <translation>Новая котировка аренды</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>New purchase quote</source>
        <translation>Новая котировка покупки</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>for example Lambda</source>
        <translation>например, Lambda</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>for example an integrator</source>
        <translation>например, интегратор</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Provider</source>
        <translation>Провайдер</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Vendor</source>
        <translation>Продавец</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Offer</source>
        <translation>Предложение</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPUs per instance</source>
        <translation>GPU в инстансе</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>GPUs</source>
        <translation>Число GPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Price per GPU-hour</source>
        <translation>Цена за GPU-час</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Price of the quote</source>
        <translation>Цена по котировке</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Currency</source>
        <translation>Валюта</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Kind</source>
        <translation>Тип</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reclaims per instance-hour</source>
        <translation>Прерываний на инстанс-час</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quoted on</source>
        <translation>Дата котировки</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>Who offers it (a cloud, a reseller, an integrator)</source>
        <translation>Кто предлагает (облако, реселлер, интегратор)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The offer&apos;s name, as the provider calls it (optional)</source>
        <translation>Название предложения, как его называет провайдер (необязательно)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The GPU type quoted</source>
        <translation>Тип GPU в котировке</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPUs in one instance (rental) or in the whole quote (purchase)</source>
        <translation>GPU в одном инстансе (аренда) или во всей котировке (покупка)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The quoted price, in the currency chosen below</source>
        <translation>Цена по котировке в валюте, выбранной ниже</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The currency of the quoted price (converted with the rates in Settings)</source>
        <translation>Валюта цены (пересчитывается по курсам из Настроек)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>On demand, spot, or a reservation</source>
        <translation>По требованию, спотовая или резерв</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>When the price was quoted</source>
        <translation>Когда получена цена</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Spot: how often the provider reclaims an instance, per instance-hour, if it says; empty: the provider&apos;s typical rate is assumed</source>
        <translation>Спотовые: как часто провайдер отзывает инстанс, прерываний на инстанс-час, если он это указывает; пусто: берётся типичная частота провайдера</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>name the provider</source>
        <translation>укажите провайдера</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>name the vendor</source>
        <translation>укажите продавца</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>type the price</source>
        <translation>введите цену</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>empty: typical</source>
        <translation>пусто: типичная</translation>
    </message>
</context>
<context>
    <name>QuoteTab</name>
    <message>
        <location filename="../../desktop/pages/quote_tab.py" line="+204"/>
        <source>Add</source>
        <translation>Добавить</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Add a quote of your own</source>
        <translation>Добавить свою котировку</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>Duplicate</source>
        <translation>Дублировать</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Copy the selected quotes as your own (reference prices too)</source>
        <translation>Скопировать выбранные котировки как свои (справочные цены тоже)</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>Delete</source>
        <translation>Удалить</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Delete the selected quotes of your own (Undo brings them back)</source>
        <translation>Удалить выбранные свои котировки (вернуть их можно через «Отменить»)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Import CSV…</source>
        <translation>Импорт CSV…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export CSV…</source>
        <translation>Экспорт CSV…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Filter:</source>
        <translation>Фильтр:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>provider contains…</source>
        <translation>провайдер содержит…</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>vendor contains…</source>
        <translation>продавец содержит…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Reference prices</source>
        <translation>Справочные цены</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show the dated reference prices shipped with GPU Advisor</source>
        <translation>Показать справочные цены с датами, поставляемые с GPU Advisor</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>all GPUs</source>
        <translation>все GPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>all kinds</source>
        <translation>все типы</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>all currencies</source>
        <translation>все валюты</translation>
    </message>
    <message>
        <location line="+72"/>
        <source>The quotes could not be read: {0}</source>
        <translation>Не удалось прочитать котировки: {0}</translation>
    </message>
    <message>
        <location line="+63"/>
        <source>Price per GPU by GPU model ({0})</source>
        <translation>Цена за GPU по моделям GPU ({0})</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} per GPU</source>
        <translation>{0} за GPU</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Not changed: {0}</source>
        <translation>Не изменено: {0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Value refused: {0}</source>
        <translation>Значение отклонено: {0}</translation>
    </message>
    <message>
        <location line="+61"/>
        <source>adding a quote</source>
        <translation>добавление котировки</translation>
    </message>
    <message numerus="yes">
        <location line="+16"/>
        <source>duplicating %n quote(s)</source>
        <translation>
            <numerusform>копирование %n котировки</numerusform>
            <numerusform>копирование %n котировок</numerusform>
            <numerusform>копирование %n котировок</numerusform>
        </translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Reference prices kept (they are read-only): {0}</source>
        <translation>Справочные цены оставлены (только для чтения): {0}</translation>
    </message>
</context>
<context>
    <name>QuoteTableModel</name>
    <message>
        <location filename="../../desktop/qmodels/quote_columns.py" line="+45"/>
        <location line="+33"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="-32"/>
        <source>Provider</source>
        <translation>Провайдер</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Kind</source>
        <translation>Тип</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Price / GPU-h</source>
        <translation>Цена / GPU-ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+33"/>
        <source>Currency</source>
        <translation>Валюта</translation>
    </message>
    <message>
        <location line="-32"/>
        <source>{0} / GPU-h</source>
        <translation>{0} / GPU-ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Price per GPU-hour in the display currency (Settings)</source>
        <translation>Цена GPU-часа в валюте отображения (Настройки)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reclaims / h</source>
        <translation>Прерываний / ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Spot: how often the provider reclaims an instance, per instance-hour (a number &gt;= 0); empty: not stated (the provider&apos;s typical rate is assumed)</source>
        <translation>Спотовые: как часто провайдер отзывает инстанс, прерываний на инстанс-час (число &gt;= 0); пусто: не указано (берётся типичная частота провайдера)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{0} / useful GPU-h</source>
        <translation>{0} / полезный GPU-ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Spot: the price per GPU-hour of progress, counting the work lost since the last checkpoint and the restart after each reclaim (a cell&apos;s tooltip gives its assumptions)</source>
        <translation>Спотовые: цена GPU-часа полезной работы с учётом работы, потерянной с последней контрольной точки, и перезапуска после каждого прерывания (допущения — в подсказке ячейки)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{0} / PFLOP-h bf16</source>
        <translation>{0} / ПФЛОПС·ч bf16</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Price of one hour of 1 PFLOP/s of dense bf16 matmul</source>
        <translation>Цена часа работы 1 ПФЛОПС плотного умножения матриц bf16</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} / TB/s-h</source>
        <translation>{0} / ТБ/с·ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Price of one hour of 1 TB/s of memory bandwidth</source>
        <translation>Цена часа работы 1 ТБ/с пропускной способности памяти</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+24"/>
        <source>Basis</source>
        <translation>Основа</translation>
    </message>
    <message>
        <location line="-23"/>
        <source>Whether the per-PFLOP and per-TB/s prices use measured figures or the catalog spec</source>
        <translation>Откуда цифры для цен за ПФЛОПС и ТБ/с: из замеров или из паспортных данных каталога</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Offer</source>
        <translation>Предложение</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+14"/>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="-13"/>
        <location line="+22"/>
        <source>Quoted on</source>
        <translation>Дата котировки</translation>
    </message>
    <message>
        <location line="-21"/>
        <source>Valid until</source>
        <translation>Действует до</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Region</source>
        <translation>Регион</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interconnect</source>
        <translation>Интерконнект</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Min. term (h)</source>
        <translation>Мин. срок (ч)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Price / instance-h</source>
        <translation>Цена / инстанс-ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+20"/>
        <source>Source</source>
        <translation>Источник</translation>
    </message>
    <message>
        <location line="-19"/>
        <location line="+20"/>
        <source>Note</source>
        <translation>Примечание</translation>
    </message>
    <message>
        <location line="-15"/>
        <source>Vendor</source>
        <translation>Продавец</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Price (total)</source>
        <translation>Цена (всего)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{0} / GPU</source>
        <translation>{0} / GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Price per GPU in the display currency, before server overhead</source>
        <translation>Цена за GPU в валюте отображения, без накладных на сервер</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} / bf16 TFLOPS</source>
        <translation>{0} / ТФЛОПС bf16</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Price per GPU divided by its dense bf16 TFLOPS</source>
        <translation>Цена GPU, делённая на его плотную производительность bf16 в ТФЛОПС</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Whether per-TFLOPS uses a measured figure or the catalog spec</source>
        <translation>Откуда цифра для цены за ТФЛОПС: из замера или из паспортных данных каталога</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Server overhead</source>
        <translation>Накладные на сервер</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Server, network and rack as a fraction of the GPU price (0.3 = +30%)</source>
        <translation>Сервер, сеть и стойка как доля цены GPU (0,3 = +30 %)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Power / GPU (W)</source>
        <translation>Мощность / GPU (Вт)</translation>
    </message>
    <message>
        <location filename="../../desktop/quote_kinds.py" line="+17"/>
        <source>on-demand</source>
        <translation>по требованию</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>spot</source>
        <translation>спотовые</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>reserved 1 year</source>
        <translation>резерв на 1 год</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>reserved 3 years</source>
        <translation>резерв на 3 года</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>committed</source>
        <translation>с обязательством</translation>
    </message>
    <message>
        <location filename="../../desktop/qmodels/quote_columns.py" line="+5"/>
        <source>typical</source>
        <translation>типичная</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>{0} reclaims per instance-hour, as the quote states</source>
        <translation>{0} прерываний на инстанс-час, как указано в котировке</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Not stated: the provider&apos;s typical rate is assumed, {0} reclaims per instance-hour (AWS Spot Instance Advisor&apos;s top band: more than 20% of instances reclaimed a month)</source>
        <translation>Не указано: берётся типичная частота провайдера, {0} прерываний на инстанс-час (верхний диапазон AWS Spot Instance Advisor: более 20% инстансов прерываются за месяц)</translation>
    </message>
    <message>
        <location filename="../../desktop/qmodels/quotes.py" line="+423"/>
        <source>Reference price shipped with GPU Advisor (read-only; duplicate it to edit): {0}</source>
        <translation>Справочная цена из поставки GPU Advisor (только чтение; чтобы изменить, продублируйте её): {0}</translation>
    </message>
</context>
<context>
    <name>QuotesPage</name>
    <message>
        <location filename="../../desktop/pages/quotes.py" line="+103"/>
        <source>Rental (per GPU-hour)</source>
        <translation>Аренда (за GPU-час)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Purchase</source>
        <translation>Покупка</translation>
    </message>
    <message>
        <location line="+87"/>
        <location line="+3"/>
        <source>no rate</source>
        <translation>нет курса</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>no price</source>
        <translation>нет цены</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{0} at the stored exchange rate</source>
        <translation>{0} по сохранённому курсу</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Not a spot quote: nothing is reclaimed, so its price per GPU-hour is its price per useful GPU-hour</source>
        <translation>Не спотовая котировка: ничего не отзывается, поэтому её цена за GPU-час и есть цена за полезный GPU-час</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>as the quote states</source>
        <translation>как указано в котировке</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not stated: the provider&apos;s typical rate, AWS Spot Instance Advisor&apos;s top band</source>
        <translation>не указано: типичная частота провайдера, верхний диапазон AWS Spot Instance Advisor</translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>A job on one instance of %n GPU(s), reclaimed {0} times per instance-hour ({1}); each reclaim loses the work since the last checkpoint (one takes {2} to write, at Daly&apos;s optimal interval) and a {3} restart. Hardware failures count alike on demand, so it compares with on-demand prices as they are.</source>
        <translation>
            <numerusform>Задача на одном инстансе с %n GPU прерывается {0} раз за инстанс-час ({1}); каждое прерывание теряет работу с последней контрольной точки (её запись занимает {2}, интервал — оптимум Дейли) и перезапуск на {3}. Аппаратные сбои учтены одинаково и для аренды по требованию, поэтому цену можно сравнивать с ценами по требованию как есть.</numerusform>
            <numerusform>Задача на одном инстансе с %n GPU прерывается {0} раз за инстанс-час ({1}); каждое прерывание теряет работу с последней контрольной точки (её запись занимает {2}, интервал — оптимум Дейли) и перезапуск на {3}. Аппаратные сбои учтены одинаково и для аренды по требованию, поэтому цену можно сравнивать с ценами по требованию как есть.</numerusform>
            <numerusform>Задача на одном инстансе с %n GPU прерывается {0} раз за инстанс-час ({1}); каждое прерывание теряет работу с последней контрольной точки (её запись занимает {2}, интервал — оптимум Дейли) и перезапуск на {3}. Аппаратные сбои учтены одинаково и для аренды по требованию, поэтому цену можно сравнивать с ценами по требованию как есть.</numerusform>
        </translation>
    </message>
    <message>
        <location line="+12"/>
        <source>spot cannot run it</source>
        <translation>на спотовых не выполнить</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{0} per GPU-hour × (1 + {1} lost to reclaims) = {2} per useful GPU-hour.</source>
        <translation>{0} за GPU-час × (1 + {1} потерь от прерываний) = {2} за полезный GPU-час.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>no spec</source>
        <translation>нет паспорта</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>This GPU is not in the catalog; add it as your own GPU type</source>
        <translation>Этого GPU нет в каталоге; добавьте его как свой тип GPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>measured</source>
        <translation>измерено</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Both figures come from your probe runs of this GPU type</source>
        <translation>Обе цифры взяты из ваших замеров этого типа GPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>partly measured</source>
        <translation>частично измерено</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Measured: {0}; the rest is the catalog spec</source>
        <translation>Измерено: {0}; остальное — паспортные данные каталога</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>spec</source>
        <translation>паспорт</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Catalog spec sheet figures (no probe run of this GPU type yet)</source>
        <translation>Паспортные данные каталога (замеров этого типа GPU ещё нет)</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Reading the quotes…</source>
        <translation>Загрузка котировок…</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{0} of your quotes and {1} dated reference prices. Prices are shown in {2} (Settings).</source>
        <translation>Ваших котировок: {0}, справочных цен с датой: {1}. Цены показаны в {2} (Настройки).</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Import quotes CSV</source>
        <translation>Импорт котировок из CSV</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>CSV files (*.csv);;All files (*)</source>
        <translation>Файлы CSV (*.csv);;Все файлы (*)</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Checking {0}…</source>
        <translation>Проверка {0}…</translation>
    </message>
    <message numerus="yes">
        <location line="+31"/>
        <source>importing %n quote(s)</source>
        <translation>
            <numerusform>импорт %n котировки</numerusform>
            <numerusform>импорт %n котировок</numerusform>
            <numerusform>импорт %n котировок</numerusform>
        </translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Imported {0} quotes; {1} duplicates skipped; {2} rows refused.</source>
        <translation>Импортировано котировок: {0}; пропущено дубликатов: {1}; отклонено строк: {2}.</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Nothing imported: {0}</source>
        <translation>Ничего не импортировано: {0}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Import failed</source>
        <translation>Импорт не удался</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Export quotes CSV</source>
        <translation>Экспорт котировок в CSV</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>CSV files (*.csv)</source>
        <translation>Файлы CSV (*.csv)</translation>
    </message>
    <message numerus="yes">
        <location line="+9"/>
        <source>Exported %n quote(s) to {0}</source>
        <translation>
            <numerusform>Экспортирована %n котировка в {0}</numerusform>
            <numerusform>Экспортировано %n котировки в {0}</numerusform>
            <numerusform>Экспортировано %n котировок в {0}</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RentBuyChart</name>
    <message>
        <location filename="../../desktop/charts/rentbuy_chart.py" line="+25"/>
        <source>rent on demand</source>
        <translation>аренда по требованию</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>rent spot</source>
        <translation>спотовая аренда</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>rent reserved (paid around the clock)</source>
        <translation>зарезервированная аренда (оплата круглосуточно)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>rent mix (on demand + spot share)</source>
        <translation>смешанная аренда (по требованию + доля спотовой)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>buy</source>
        <translation>покупка</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>hybrid (own base, rent bursts)</source>
        <translation>гибрид (своя база, аренда пиков)</translation>
    </message>
    <message>
        <location line="+74"/>
        <source>months</source>
        <translation>месяцы</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>cumulative cost ({0})</source>
        <translation>накопленные затраты ({0})</translation>
    </message>
    <message>
        <location line="+53"/>
        <source>buying pays off after {0} months</source>
        <translation>покупка окупается через {0} мес.</translation>
    </message>
</context>
<context>
    <name>RentBuyPage</name>
    <message>
        <location filename="../../desktop/pages/rent_buy.py" line="+80"/>
        <source>the spot reclaim rate must be a number of reclaims per node-hour (0.02), got &apos;{0}&apos;</source>
        <translation>частота прерываний спотовых узлов должна быть числом прерываний на узло-час (0,02), получено «{0}»</translation>
    </message>
    <message>
        <location line="+220"/>
        <source>Use</source>
        <translation>Использование</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Buying</source>
        <translation>Покупка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Renting</source>
        <translation>Аренда</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Follow the Plan page&apos;s chosen option</source>
        <translation>Брать вариант, выбранный на странице «План»</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPUs</source>
        <translation>Число GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Runs per month</source>
        <translation>Запусков в месяц</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hours per day</source>
        <translation>Часов в сутки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Utilisation</source>
        <translation>Загрузка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Horizon (months)</source>
        <translation>Горизонт (мес.)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Price per GPU</source>
        <translation>Цена за GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Server overhead</source>
        <translation>Накладные на сервер</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Power per GPU</source>
        <translation>Мощность на GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PUE</source>
        <translation>PUE</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Electricity</source>
        <translation>Электроэнергия</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Maintenance per year</source>
        <translation>Обслуживание в год</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Resale at the end</source>
        <translation>Перепродажа в конце</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>On demand</source>
        <translation>По требованию</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Spot</source>
        <translation>Спотовые</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Spot reclaims / node-h</source>
        <translation>Прерываний спота / узло-ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoint write</source>
        <translation>Запись контр. точки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Restart</source>
        <translation>Перезапуск</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reserved</source>
        <translation>Зарезервированные</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Share on spot</source>
        <translation>Доля спотовых</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hybrid: GPUs owned</source>
        <translation>Гибрид: своих GPU</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{0} h</source>
        <translation>{0} ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{0} mo</source>
        <translation>{0} мес.</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>no quote</source>
        <translation>нет котировки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no price: type one</source>
        <translation>нет цены: введите</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>use the utilisation below</source>
        <translation>по загрузке ниже</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Take the GPU, the count and the job from the option selected on the Plan page</source>
        <translation>Брать GPU, их число и задание из варианта, выбранного на странице «План»</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The GPU type to rent or buy; every price below is this GPU&apos;s</source>
        <translation>Тип GPU для аренды или покупки; все цены ниже — для этого GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPUs to rent or to buy</source>
        <translation>Сколько GPU арендовать или купить</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>How often the plan&apos;s job runs; with its GPU-hours this sets the utilisation</source>
        <translation>Как часто запускается задание из плана; вместе с его GPU-часами это задаёт загрузку</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hours a day the GPUs may work (the schedule)</source>
        <translation>Сколько часов в сутки GPU могут работать (график)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Busy share of the schedule; set by the runs per month when the plan&apos;s job is known</source>
        <translation>Доля графика, когда GPU заняты; задаётся числом запусков в месяц, когда задание из плана известно</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>How long the hardware is used before it is sold</source>
        <translation>Сколько оборудование используется до продажи</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Purchase price of one GPU (from your purchase quotes or the catalog)</source>
        <translation>Цена покупки одного GPU (из ваших котировок покупки или каталога)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Power one busy GPU draws (the TDP is a fair upper figure)</source>
        <translation>Мощность одного занятого GPU (TDP — разумная верхняя оценка)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Price of one kWh (Settings holds the default)</source>
        <translation>Цена одного кВт·ч (значение по умолчанию — в Настройках)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Support, spares and operations per year, as a share of the purchase</source>
        <translation>Поддержка, запчасти и эксплуатация в год, как доля цены покупки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Share of the purchase price recovered at the end of the horizon</source>
        <translation>Доля цены покупки, возвращаемая в конце горизонта</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rent per GPU-hour on demand (the median of the stored quotes)</source>
        <translation>Аренда за GPU-час по требованию (медиана сохранённых котировок)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rent per GPU-hour on spot instances (interruptible)</source>
        <translation>Аренда за GPU-час спотовых инстансов (могут прерываться)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rent per GPU-hour with a reservation, paid around the clock</source>
        <translation>Аренда за GPU-час с резервом, оплачивается круглосуточно</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>How often a spot node is reclaimed, per node-hour; each reclaim stops the whole job on all the GPUs above. Empty: the rate your spot quotes state, else the provider&apos;s typical one</source>
        <translation>Как часто отзывают спотовый узел, прерываний на узло-час; каждое прерывание останавливает всю задачу на всех GPU выше. Пусто: частота из ваших спотовых котировок, иначе типичная частота провайдера</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Minutes to write one checkpoint; checkpoints come at Daly&apos;s optimal interval, and a reclaim loses the work since the last one</source>
        <translation>Минуты на запись одной контрольной точки; точки пишутся с оптимальным интервалом Дейли, а прерывание теряет работу с последней из них</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Minutes from a reclaim until the job runs again (detection, rescheduling, reload)</source>
        <translation>Минуты от прерывания до возобновления задачи (обнаружение, повторное планирование, загрузка)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>W</source>
        <translation>Вт</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Server, network and rack cost as a share of the GPU price</source>
        <translation>Стоимость сервера, сети и стойки как доля цены GPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Power usage effectiveness: facility power / IT power (1.0 = no overhead)</source>
        <translation>Эффективность использования энергии (PUE): мощность ЦОД / мощность ИТ-оборудования (1,0 — без накладных)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Owned GPUs take the base load, in whole groups of one job&apos;s GPUs; the rest is rented on demand</source>
        <translation>Свои GPU берут базовую нагрузку целыми группами по числу GPU одного задания; остальное арендуется по требованию</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Share of rented hours run on spot instances (the &apos;rent mix&apos; line), at the spot line&apos;s cost per useful hour</source>
        <translation>Доля арендованных часов на спотовых инстансах (линия «смешанная аренда»), по цене полезного часа спотовой линии</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>min</source>
        <translation>мин</translation>
    </message>
    <message>
        <location line="+28"/>
        <location line="+1"/>
        <location line="+1"/>
        <source>/GPU-h</source>
        <translation>/GPU-ч</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>/kWh</source>
        <translation>/кВт·ч</translation>
    </message>
    <message>
        <location line="+44"/>
        <source>The plan&apos;s job: {0} GPUs at once, {1} GPU-hours a run</source>
        <translation>Задание из плана: {0} GPU одновременно, {1} GPU-часов за запуск</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>No plan&apos;s job followed: the utilisation below is the use.</source>
        <translation>Задание из плана не выбрано: использование задаёт загрузка ниже.</translation>
    </message>
    <message>
        <location line="+99"/>
        <source>the plan&apos;s chosen spot quote</source>
        <translation>выбранная в плане спотовая котировка</translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>median of %n spot quote(s)</source>
        <translation>
            <numerusform>медиана %n спотовой котировки</numerusform>
            <numerusform>медиана %n спотовых котировок</numerusform>
            <numerusform>медиана %n спотовых котировок</numerusform>
        </translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the provider&apos;s typical rate, AWS Spot Instance Advisor&apos;s top band</source>
        <translation>типичная частота провайдера, верхний диапазон AWS Spot Instance Advisor</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>from quotes</source>
        <translation>из котировок</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>typical</source>
        <translation>типичная</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>typed</source>
        <translation>введена</translation>
    </message>
    <message numerus="yes">
        <location line="+44"/>
        <source>median of %n purchase quote(s): {0}</source>
        <translation>
            <numerusform>медиана %n котировки покупки: {0}</numerusform>
            <numerusform>медиана %n котировок покупки: {0}</numerusform>
            <numerusform>медиана %n котировок покупки: {0}</numerusform>
        </translation>
    </message>
    <message>
        <location line="+8"/>
        <source>no purchase price known for {0}: type one</source>
        <translation>цена покупки {0} неизвестна: введите её</translation>
    </message>
    <message>
        <location line="+59"/>
        <source>no on-demand price for {0}: type one to compare</source>
        <translation>нет цены по требованию для {0}: введите её для сравнения</translation>
    </message>
    <message>
        <location filename="../../desktop/rent_buy_text.py" line="+73"/>
        <source>No purchase price is known for {0}: type one to compare buying.</source>
        <translation>Цена покупки {0} неизвестна: введите её, чтобы сравнить с покупкой.</translation>
    </message>
    <message>
        <location line="+84"/>
        <source>That is {0} per useful GPU-hour against {1} on demand;</source>
        <translation>Это {0} за полезный GPU-час против {1} по требованию;</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>spot pays at every job size.</source>
        <translation>спотовые выгодны при любом размере задачи.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>spot does not pay, not even on one node.</source>
        <translation>спотовые невыгодны даже на одном узле.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>spot does not pay for this job;</source>
        <translation>для этой задачи спотовые невыгодны;</translation>
    </message>
    <message>
        <location filename="../../desktop/pages/rent_buy.py" line="-227"/>
        <source>No plan chosen yet: the Plan page&apos;s selected option fills GPU and count.</source>
        <translation>План ещё не выбран: GPU и их число берутся из варианта, выбранного на странице «План».</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>From the plan: {0} × {1}</source>
        <translation>Из плана: {0} × {1}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The plan chose {0} × {1}; tick the box above to use it.</source>
        <translation>План выбрал {0} × {1}; отметьте флажок выше, чтобы использовать его.</translation>
    </message>
    <message>
        <location line="+49"/>
        <source>no on-demand quote: type a price</source>
        <translation>нет котировки по требованию: введите цену</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>no spot quote stored: type a price to compare</source>
        <translation>нет сохранённой спотовой котировки: введите цену для сравнения</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>no reserved quote stored: type a price to compare</source>
        <translation>нет сохранённой котировки на резерв: введите цену для сравнения</translation>
    </message>
    <message>
        <location line="+102"/>
        <source>catalog price (see the GPU&apos;s sources)</source>
        <translation>цена из каталога (см. источники GPU)</translation>
    </message>
    <message>
        <location line="+104"/>
        <source>Cannot compare: {0}</source>
        <translation>Сравнить нельзя: {0}</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>no inputs yet</source>
        <translation>данных пока нет</translation>
    </message>
    <message>
        <location filename="../../desktop/rent_buy_text.py" line="-121"/>
        <source>renting on demand</source>
        <translation>аренда по требованию</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>renting spot</source>
        <translation>спотовая аренда</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>renting reserved</source>
        <translation>зарезервированная аренда</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>buying</source>
        <translation>покупка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>hybrid (own the base load, rent the bursts)</source>
        <translation>гибрид (своя базовая нагрузка, аренда пиков)</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Owning never pays off: renting costs less per hour than running an owned GPU.</source>
        <translation>Владение не окупается никогда: час аренды дешевле часа работы своего GPU.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Buying pays off after {0} GPU-hours per GPU</source>
        <translation>Покупка окупается через {0} GPU-часов на каждый GPU</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>(about {0} months at this schedule).</source>
        <translation>(около {0} мес. при таком графике).</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Renting wins even at 100% utilisation over this horizon.</source>
        <translation>На этом горизонте аренда выгоднее даже при загрузке 100 %.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Owning beats on-demand renting above {0} utilisation.</source>
        <translation>Владение выгоднее аренды по требованию при загрузке выше {0}.</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>buying cheaper after {0} months</source>
        <translation>покупка дешевле через {0} мес.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>buying cheaper only at the end, counting the resale</source>
        <translation>покупка дешевле только в конце, с учётом перепродажи</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>buying never cheaper</source>
        <translation>покупка не бывает дешевле</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Owned cost per busy GPU-hour: {0}; running cost (power, maintenance): {1}.</source>
        <translation>Стоимость своего GPU за час работы: {0}; текущие расходы (электроэнергия, обслуживание): {1}.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Plan</source>
        <translation>Вариант</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Total over the horizon</source>
        <translation>Итого за горизонт</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Break-even</source>
        <translation>Точка безубыточности</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Price from</source>
        <translation>Источник цены</translation>
    </message>
</context>
<context>
    <name>ResiliencePanel</name>
    <message>
        <location filename="../../desktop/pages/plan_scale_inputs.py" line="-271"/>
        <source>Failures and checkpoints (training)</source>
        <translation>Сбои и контрольные точки (обучение)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Failure rate</source>
        <translation>Частота сбоев</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoint storage</source>
        <translation>Хранилище контрольных точек</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoint write rate</source>
        <translation>Скорость записи точки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoint interval</source>
        <translation>Интервал контрольных точек</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>published</source>
        <translation>опубликованная</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the storage&apos;s</source>
        <translation>хранилища</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>optimal (Daly)</source>
        <translation>оптимальный (Дейли)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>per million GPU-hours</source>
        <translation>на миллион GPU-часов</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GB/s per GPU</source>
        <translation>ГБ/с на GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>min</source>
        <translation>мин</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Spot capacity</source>
        <translation>Спотовые мощности</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reclaims per node-hour</source>
        <translation>Отзывов на узел в час</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the quote&apos;s, else {0}</source>
        <translation>из котировки, иначе {0}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Unticked: the published failure rate of each GPU type (Llama 3 for H100, Meta&apos;s clusters for A100), the storage&apos;s own write rate and Daly&apos;s optimal interval. 0 failures turns the goodput term off.</source>
        <translation>Флажок снят: опубликованная частота сбоев каждого типа GPU (Llama 3 для H100, кластеры Meta для A100), собственная скорость записи хранилища и оптимальный интервал Дейли. 0 сбоев отключает учёт полезного времени.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Job interruptions per million GPU-hours (the CLI&apos;s --failures-per-million-gpu-hours); tick to set your own</source>
        <translation>Прерывания задания на миллион GPU-часов (--failures-per-million-gpu-hours в CLI); отметьте, чтобы задать своё значение</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Where checkpoints are written (the CLI&apos;s --checkpoint-storage)</source>
        <translation>Куда пишутся контрольные точки (--checkpoint-storage в CLI)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoint write rate per GPU in GB/s; overrides the storage (the CLI&apos;s --checkpoint-gb-per-s)</source>
        <translation>Скорость записи контрольной точки на GPU в ГБ/с; заменяет хранилище (--checkpoint-gb-per-s в CLI)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Minutes of work between checkpoints (the CLI&apos;s --checkpoint-interval-minutes); unticked: Daly&apos;s optimum</source>
        <translation>Минуты работы между контрольными точками (--checkpoint-interval-minutes в CLI); флажок снят: оптимум Дейли</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Plan on spot capacity: spot quotes price the plan, every reclaimed node stops the job, and the Goodput tab compares spot with on demand (the CLI&apos;s --spot)</source>
        <translation>Планировать на спотовых мощностях: цены берутся из спотовых котировок, каждый отозванный узел останавливает задачу, а вкладка Goodput сравнивает спот с арендой по требованию (--spot в CLI)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Spot reclaims per node (instance) per hour (the CLI&apos;s --spot-interruptions-per-node-hour); blank: the rate the spot quotes state, else AWS Spot Instance Advisor&apos;s top band</source>
        <translation>Отзывы спота на узел (инстанс) в час (--spot-interruptions-per-node-hour в CLI); пусто — частота из спотовых котировок, иначе верхняя полоса AWS Spot Instance Advisor</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>parallel file system</source>
        <translation>параллельная файловая система</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>local NVMe</source>
        <translation>локальный NVMe</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Reclaims per node-hour is a number from 0 to {0} (blank: the quote&apos;s rate); fix “{1}”. The plan keeps the last valid rate meanwhile.</source>
        <translation>Отзывы на узел в час — число от 0 до {0} (пусто — частота из котировки); исправьте «{1}». Пока план использует последнюю верную частоту.</translation>
    </message>
</context>
<context>
    <name>ResultsPanel</name>
    <message>
        <location filename="../../desktop/pages/plan_results.py" line="+153"/>
        <source>Advice</source>
        <translation>Советы</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Excluded strategies</source>
        <translation>Исключено</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Options</source>
        <translation>Варианты</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Goodput</source>
        <translation>Полезное время</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Mixed pool</source>
        <translation>Смешанный пул</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Throughput vs latency</source>
        <translation>Пропускная способность и задержка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Serving: output tokens/s per GPU against tokens/s per user for each layout of the selected GPU type, and the frontier</source>
        <translation>Инференс: выходные токены/с на GPU против токенов/с на пользователя для каждой раскладки выбранного типа GPU и граница</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The ranked options; time, GPU-hours and cost with losses</source>
        <translation>Упорядоченные варианты; время, GPU-часы и стоимость с потерями</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Failures, checkpoints and restarts of the selected option</source>
        <translation>Сбои, контрольные точки и перезапуски выбранного варианта</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Each GPU type of your pool alone, the whole pool as one job, a pipeline over the types and separate jobs</source>
        <translation>Каждый тип GPU вашего пула отдельно, весь пул как одно задание, конвейер по типам и отдельные задачи</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory per GPU, selected option</source>
        <translation>Память на GPU, выбранный вариант</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Time and cost against GPU count (selected GPU type)</source>
        <translation>Время и стоимость в зависимости от числа GPU (выбранный тип GPU)</translation>
    </message>
</context>
<context>
    <name>SavedPlansDialog</name>
    <message>
        <location filename="../../desktop/pages/saved_plans.py" line="+64"/>
        <source>Saved plans</source>
        <translation>Сохранённые планы</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open</source>
        <translation>Открыть</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rename…</source>
        <translation>Переименовать…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delete</source>
        <translation>Удалить</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No saved plans yet. Use Save on the Plan page to keep one.</source>
        <translation>Сохранённых планов пока нет. Чтобы сохранить план, нажмите «Сохранить» на странице «План».</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>Rename plan</source>
        <translation>Переименовать план</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>New name:</source>
        <translation>Новое название:</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Delete plan</source>
        <translation>Удалить план</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Delete the saved plan “{0}”?</source>
        <translation>Удалить сохранённый план «{0}»?</translation>
    </message>
</context>
<context>
    <name>ServingInputs</name>
    <message>
        <location filename="../../desktop/pages/plan_serving_inputs.py" line="+86"/>
        <source>Prompt (tokens)</source>
        <translation>Промпт (токены)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Output (tokens)</source>
        <translation>Ответ (токены)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Concurrent users</source>
        <translation>Одновременных пользователей</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Request rate</source>
        <translation>Поток запросов</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Target speed (tokens/s)</source>
        <translation>Целевая скорость (токенов/с)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>First token within (p90)</source>
        <translation>Первый токен не позже (p90)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Per output token within</source>
        <translation>На выходной токен не больше</translation>
    </message>
    <message>
        <location line="+5"/>
        <location line="+1"/>
        <source>tokens</source>
        <translation>токенов</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>users</source>
        <translation>польз.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>requests/s</source>
        <translation>запросов/с</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ms</source>
        <translation>мс</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no target</source>
        <translation>без цели</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Tokens of each request&apos;s prompt: its prefill sets the time to first token</source>
        <translation>Токены промпта каждого запроса: его предзаполнение (prefill) задаёт время до первого токена</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tokens generated per request</source>
        <translation>Токены, генерируемые на один запрос</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Load as users decoding at the same time, each sending its next request when the last one ends</source>
        <translation>Нагрузка как пользователи, декодируемые одновременно; каждый шлёт следующий запрос, когда закончится предыдущий</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Users decoding at the same time; they are split across the replicas</source>
        <translation>Пользователи, декодируемые одновременно; они делятся между репликами</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Load as requests arriving at random (Poisson) at this rate over all replicas</source>
        <translation>Нагрузка как запросы, приходящие случайно (по Пуассону) с этой частотой на все реплики</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Requests per second over all replicas</source>
        <translation>Запросов в секунду на все реплики</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Target speed: output tokens per second over all users together; replicas are added until it is met</source>
        <translation>Целевая скорость: выходных токенов в секунду для всех пользователей вместе; реплики добавляются, пока она не достигнута</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Time to first token that 90% of requests must keep (queue, prefill and overhead); no target at 0</source>
        <translation>Время до первого токена, которое должны выдержать 90% запросов (очередь, предзаполнение и накладные расходы); 0 — без цели</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Mean time per output token every option must keep; no target at 0</source>
        <translation>Среднее время на выходной токен, которое должен выдержать каждый вариант; 0 — без цели</translation>
    </message>
</context>
<context>
    <name>SettingsPage</name>
    <message>
        <location filename="../../desktop/pages/settings.py" line="+160"/>
        <source>Money</source>
        <translation>Деньги</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Display currency:</source>
        <translation>Валюта отображения:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Every cost is shown in this currency; quotes keep their own</source>
        <translation>Все суммы показываются в этой валюте; котировки хранят свою</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Exchange rates:</source>
        <translation>Курсы валют:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Currency</source>
        <translation>Валюта</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Value in US dollars</source>
        <translation>Стоимость в долларах США</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>As of</source>
        <translation>На дату</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save rates</source>
        <translation>Сохранить курсы</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Electricity price:</source>
        <translation>Цена электроэнергии:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>per kWh</source>
        <translation>за кВт·ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Language</source>
        <translation>Язык</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interface language:</source>
        <translation>Язык интерфейса:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>System default</source>
        <translation>Как в системе</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Also on the command line: gpu-advisor --lang en|ru.</source>
        <translation>Также в командной строке: gpu-advisor --lang en|ru.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPUs and probe</source>
        <translation>GPU и замер</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>NVML:</source>
        <translation>NVML:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NVIDIA driver:</source>
        <translation>Драйвер NVIDIA:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>CUDA (driver):</source>
        <translation>CUDA (драйвер):</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPUs found:</source>
        <translation>Найдено GPU:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Probe:</source>
        <translation>Замер:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>torch (probe only):</source>
        <translation>torch (только для замера):</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Database:</source>
        <translation>База данных:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Window settings:</source>
        <translation>Настройки окна:</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Exchange rates saved.</source>
        <translation>Курсы валют сохранены.</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Interface language changed.</source>
        <translation>Язык интерфейса изменён.</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Each rate keeps the date it was set. Quotes in a currency without a rate show &quot;no rate&quot;; a rate is never guessed.</source>
        <translation>Каждый курс хранит дату, на которую он задан. Для котировок в валюте без курса показывается «нет курса»; курс никогда не подставляется наугад.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not set yet: {0}.</source>
        <translation>Ещё не заданы: {0}.</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>reading…</source>
        <translation>чтение…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>available</source>
        <translation>доступен</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>unavailable</source>
        <translation>недоступен</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+1"/>
        <source>n/a</source>
        <translation>н/д</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>none</source>
        <translation>нет</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>ready ({0})</source>
        <translation>готов ({0})</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>unavailable: {0}</source>
        <translation>недоступен: {0}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not installed</source>
        <translation>не установлен</translation>
    </message>
</context>
<context>
    <name>ShapePanel</name>
    <message>
        <location filename="../../desktop/pages/plan_inputs.py" line="-316"/>
        <source>The sequence length must be a whole number of tokens from 1 to {1}, not “{0}”: no plan until it is.</source>
        <translation>Длина последовательности должна быть целым числом токенов от 1 до {1}, а не «{0}»: плана не будет, пока она не исправлена.</translation>
    </message>
    <message>
        <location line="+414"/>
        <source>3. Shape</source>
        <translation>3. Размеры задачи</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Sequence length (tokens)</source>
        <translation>Длина последовательности (токенов)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Context (tokens)</source>
        <translation>Контекст (токенов)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Global batch (sequences)</source>
        <translation>Глобальный батч (посл.)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tokens to train</source>
        <translation>Токенов для обучения</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Dataset size</source>
        <translation>Размер датасета</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+1"/>
        <source>B tokens</source>
        <translation>млрд токенов</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>epochs</source>
        <translation>эпох</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>seq</source>
        <translation>посл.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Tokens per sequence (training) or the longest context a user reaches, prompt and answer together (serving)</source>
        <translation>Токенов в последовательности (обучение) или самый длинный контекст пользователя, запрос и ответ вместе (инференс)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Sequences per optimizer step over all GPUs; micro-batches and gradient accumulation split it (training)</source>
        <translation>Последовательностей на шаг оптимизатора по всем GPU; их делят микробатчи и накопление градиентов (обучение)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Give the tokens the whole run trains on</source>
        <translation>Задать число токенов всего обучения</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tokens the whole run trains on, in billions</source>
        <translation>Токенов за всё обучение, в миллиардах</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Give the dataset size and the number of epochs</source>
        <translation>Задать размер датасета и число эпох</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tokens in one pass over the dataset, in billions</source>
        <translation>Токенов за один проход по датасету, в миллиардах</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Passes over the dataset</source>
        <translation>Проходов по датасету</translation>
    </message>
</context>
<context>
    <name>StrategyPanel</name>
    <message>
        <location filename="../../desktop/pages/plan_constraints.py" line="+80"/>
        <source>Strategy (expert)</source>
        <translation>Стратегия (эксперт)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Data parallel</source>
        <translation>Параллелизм по данным</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Tick to fix the data-parallel degree (replicas when serving)</source>
        <translation>Отметьте, чтобы закрепить степень параллелизма по данным (реплики при инференсе)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tensor parallel</source>
        <translation>Тензорный параллелизм</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Tick to fix the tensor-parallel degree (GPUs per layer)</source>
        <translation>Отметьте, чтобы закрепить степень тензорного параллелизма (GPU на слой)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Pipeline parallel</source>
        <translation>Конвейерный параллелизм</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Tick to fix the number of pipeline stages</source>
        <translation>Отметьте, чтобы закрепить число стадий конвейера</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Micro-batch</source>
        <translation>Микробатч</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Tick to fix the sequences per GPU per step (training) or per replica (serving)</source>
        <translation>Отметьте, чтобы закрепить число последовательностей на GPU за шаг (обучение) или на реплику (инференс)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>ZeRO stage</source>
        <translation>Стадия ZeRO</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>LoRA rank</source>
        <translation>Ранг LoRA</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Searched, or one ZeRO stage for every option (DeepSpeed ZeRO 0 to 3)</source>
        <translation>Подбирается или одна стадия ZeRO для всех вариантов (ZeRO 0–3 в DeepSpeed)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Rank of the LoRA/QLoRA adapters (the CLI&apos;s --lora-rank)</source>
        <translation>Ранг адаптеров LoRA/QLoRA (--lora-rank в командной строке)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>searched</source>
        <translation>подбирается</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ZeRO-{0}</source>
        <translation>ZeRO-{0}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Runtime</source>
        <translation>Среда выполнения</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Chosen per layout (DDP for plain data parallel, else DeepSpeed, else torchtitan), or one training runtime for every option: its memory layout is counted and its runner exported</source>
        <translation>Выбирается для каждой раскладки (DDP для простого параллелизма данных, иначе DeepSpeed, иначе torchtitan) или одна среда обучения для всех вариантов: учитывается её размещение в памяти и экспортируется её запуск</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>chosen per layout</source>
        <translation>выбирается для каждой раскладки</translation>
    </message>
</context>
<context>
    <name>TelemetryChart</name>
    <message>
        <location filename="../../desktop/charts/telemetry.py" line="+27"/>
        <source>Utilisation</source>
        <translation>Загрузка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory used</source>
        <translation>Занятая память</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Temperature</source>
        <translation>Температура</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Power</source>
        <translation>Мощность</translation>
    </message>
    <message>
        <location line="+68"/>
        <source>seconds ago</source>
        <translation>секунд назад</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>No GPU to watch.</source>
        <translation>Нет GPU для наблюдения.</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>(lost)</source>
        <translation>(потерян)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>not reported</source>
        <translation>не сообщается</translation>
    </message>
</context>
<context>
    <name>TraceButton</name>
    <message>
        <location filename="../../desktop/pages/trace_memory.py" line="+332"/>
        <source>Trace exactly…</source>
        <translation>Трассировать точно…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Run the real model&apos;s step on fake tensors in the background and compare its memory with the estimate (a config.json or model folder)</source>
        <translation>Выполнить шаг настоящей модели на фиктивных тензорах в фоне и сравнить её память с оценкой (config.json или папка модели)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Choose an option in the table first</source>
        <translation>Сначала выберите вариант в таблице</translation>
    </message>
</context>
<context>
    <name>TraceMemory</name>
    <message>
        <location line="-286"/>
        <source>The packaged app does not include transformers. Trace from a source install: pip install &apos;gpu-advisor[trace]&apos;, then gpu-advisor memory --trace.</source>
        <translation>Собранное приложение не содержит transformers. Трассируйте из установки из исходников: pip install &apos;gpu-advisor[trace]&apos;, затем gpu-advisor memory --trace.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>torch and transformers are not installed here. Install them with: pip install &apos;gpu-advisor[trace]&apos;</source>
        <translation>torch и transformers здесь не установлены. Установите их: pip install &apos;gpu-advisor[trace]&apos;</translation>
    </message>
</context>
<context>
    <name>TraceMemoryDialog</name>
    <message>
        <location line="+135"/>
        <source>Trace memory exactly</source>
        <translation>Точная трассировка памяти</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Term</source>
        <translation>Статья</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Analytic</source>
        <translation>Оценка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Traced</source>
        <translation>Трассировка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ratio</source>
        <translation>Отношение</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>What differs</source>
        <translation>В чём разница</translation>
    </message>
    <message>
        <location line="+35"/>
        <source>Starting the trace (torch and transformers load in a child process)…</source>
        <translation>Запуск трассировки (torch и transformers загружаются в дочернем процессе)…</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Tracing: {0} ({1})</source>
        <translation>Трассировка: {0} ({1})</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Traced on fake tensors in {0}: the real model&apos;s step, accounted tensor by tensor.</source>
        <translation>Трассировано на фиктивных тензорах за {0}: шаг настоящей модели, учтённый тензор за тензором.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The trace did not finish: {0}</source>
        <translation>Трассировка не завершилась: {0}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>every parameter and buffer (ZeRO-2/3: the shard plus the gathered units)</source>
        <translation>все параметры и буферы (ZeRO-2/3: шард плюс собранные блоки)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>at their maximum, the optimizer step</source>
        <translation>в максимуме, на шаге оптимизатора</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AdamW m and v</source>
        <translation>m и v AdamW</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>what the forward keeps plus the backward&apos;s transients; the formulas leave out rotary tables and small per-token statistics</source>
        <translation>то, что хранит прямой проход, плюс временные тензоры обратного; формулы не учитывают таблицы RoPE и малую статистику на токен</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>keys and values after the decoded tokens</source>
        <translation>ключи и значения после декодированных токенов</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the step&apos;s peak; the analytic figure without the CUDA context and allocator margin</source>
        <translation>пик шага; оценка без контекста CUDA и запаса аллокатора</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Weights</source>
        <translation>Веса</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Gradients</source>
        <translation>Градиенты</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Optimizer</source>
        <translation>Оптимизатор</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Activations</source>
        <translation>Активации</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>KV cache</source>
        <translation>KV-кэш</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Peak</source>
        <translation>Пик</translation>
    </message>
</context>
<context>
    <name>TraceProcess</name>
    <message>
        <location line="-156"/>
        <source>the trace printed a line longer than 4 MiB</source>
        <translation>трассировка вывела строку длиннее 4 МиБ</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Cancelled</source>
        <translation>Отменено</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>the trace ended without a result</source>
        <translation>трассировка завершилась без результата</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>the trace could not start: {0}</source>
        <translation>трассировка не запустилась: {0}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>no result after {0}</source>
        <translation>нет результата через {0}</translation>
    </message>
</context>
<context>
    <name>UserGuide</name>
    <message>
        <location filename="../../desktop/help.py" line="+16"/>
        <source>What GPU Advisor answers</source>
        <translation>На что отвечает GPU Advisor</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Will a model fit, how fast will it train or serve, with which sharding, what will it cost, and is it cheaper to rent or to buy the GPUs? Everything runs on this computer, without a network.</source>
        <translation>Поместится ли модель, как быстро она будет обучаться или отвечать, с каким шардированием, сколько это будет стоить и что дешевле — арендовать или купить GPU? Всё работает на этом компьютере, без сети.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Hardware</source>
        <translation>Оборудование</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Lists this machine&apos;s NVIDIA GPUs with live telemetry. Run probe measures their real matmul speed and memory bandwidth (a quick probe takes about a minute); Measure the CPU works without a GPU. Import probe report adds a machine measured elsewhere with gpu-probe.</source>
        <translation>Показывает GPU NVIDIA этой машины с живой телеметрией. Замер измеряет реальную скорость умножения матриц и пропускную способность памяти (быстрый замер занимает около минуты); «Измерить CPU» работает и без GPU. «Импорт отчёта замера» добавляет машину, измеренную в другом месте с помощью gpu-probe.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Quotes</source>
        <translation>Котировки</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rental prices (per GPU-hour) and purchase prices you collected, beside the shipped reference prices. Add opens a form; nothing is stored until the quote is complete. Edits, imports and deletions can be undone with Ctrl+Z and redone with Ctrl+Shift+Z.</source>
        <translation>Собранные вами цены аренды (за GPU-час) и покупки рядом со встроенными справочными ценами. «Добавить» открывает форму; ничего не сохраняется, пока котировка не заполнена. Правки, импорт и удаление отменяются клавишами Ctrl+Z и возвращаются клавишами Ctrl+Shift+Z.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Plan</source>
        <translation>План</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Answer five questions (Guided) or see every input at once (Expert): the task, the model, the sequence length and batch, the hardware and your limits. The headline names the best option; the table ranks the others; the charts show the memory per GPU and how time and cost change with the GPU count. Expert mode also pins the parallel layout. Export writes launch configs and a report for the selected option.</source>
        <translation>Ответьте на пять вопросов («Пошагово») или задайте всё сразу («Эксперт»): задача, модель, длина последовательности и батч, оборудование и ограничения. Заголовок называет лучший вариант, таблица упорядочивает остальные, графики показывают память на GPU и как время и стоимость меняются с числом GPU. В режиме эксперта можно закрепить раскладку параллелизма. «Экспорт» записывает конфигурации запуска и отчёт для выбранного варианта.</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Rent or buy</source>
        <translation>Аренда или покупка</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Compares renting (on demand, spot, reserved), buying and a hybrid month by month. It follows the option chosen on the Plan page: say how often the job runs each month and the utilisation follows from the job&apos;s GPU-hours.</source>
        <translation>Сравнивает аренду (по требованию, спотовую, зарезервированную), покупку и гибрид помесячно. Берёт вариант, выбранный на странице «План»: укажите, сколько раз в месяц запускается задание, и загрузка получится из его GPU-часов.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Where the numbers come from</source>
        <translation>Откуда берутся цифры</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A catalog GPU uses its datasheet; a measured machine uses its probe figures. A GPU type is priced at the quote you ticked, else at the median of your on-demand quotes, else at the median of the reference quotes. An option fits when it needs at most the GPU&apos;s memory less the headroom (10% by default). The command line (gpu-advisor plan) gives the same answer for the same inputs.</source>
        <translation>GPU из каталога считается по паспорту, измеренная машина — по своим замерам. Цена типа GPU — это отмеченная вами котировка, иначе медиана ваших котировок по требованию, иначе медиана справочных. Вариант помещается, если ему хватает памяти GPU за вычетом запаса (по умолчанию 10 %). Командная строка (gpu-advisor plan) при тех же входных данных даёт тот же ответ.</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>GPU Advisor user guide</source>
        <translation>Руководство GPU Advisor</translation>
    </message>
</context>
<context>
    <name>WorkloadPanel</name>
    <message>
        <location filename="../../desktop/pages/plan_inputs.py" line="-339"/>
        <source>1. Workload</source>
        <translation>1. Задача</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Task</source>
        <translation>Задача</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Precision</source>
        <translation>Точность</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Serve the model to users, or train it: from scratch, all weights, or adapters</source>
        <translation>Отвечать пользователям или обучать: с нуля, все веса или адаптеры</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Number format of the weights and the compute (bf16 for training; int8/int4 for serving)</source>
        <translation>Формат чисел для весов и вычислений (bf16 для обучения; int8/int4 для инференса)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Serve / inference</source>
        <translation>Инференс (обслуживание)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Pretraining</source>
        <translation>Предобучение</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Full fine-tune</source>
        <translation>Полное дообучение</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>LoRA fine-tune</source>
        <translation>Дообучение LoRA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>QLoRA fine-tune (4-bit base)</source>
        <translation>Дообучение QLoRA (4-битная база)</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Weights and KV cache only; speed is limited by memory bandwidth when decoding.</source>
        <translation>Только веса и кэш KV; при декодировании скорость ограничена пропускной способностью памяти.</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+3"/>
        <source>All weights train: weights, gradients and optimizer states (16 bytes per parameter).</source>
        <translation>Обучаются все веса: веса, градиенты и состояния оптимизатора (16 байт на параметр).</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The base model is frozen; small adapters train. Needs about the inference memory.</source>
        <translation>Базовая модель заморожена, обучаются небольшие адаптеры. Памяти нужно примерно как для инференса.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The frozen base is stored in 4 bits (NF4); adapters train in bf16.</source>
        <translation>Замороженная база хранится в 4 битах (NF4); адаптеры обучаются в bf16.</translation>
    </message>
</context>
<context>
    <name>fmt</name>
    <message>
        <location filename="../../desktop/fmt.py" line="+22"/>
        <source>B</source>
        <translation>Б</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ms</source>
        <translation>мс</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>s</source>
        <translation>с</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>min</source>
        <translation>мин</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>h</source>
        <translation>ч</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>days</source>
        <translation>дн.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TFLOPS</source>
        <translation>ТФЛОПС</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GFLOPS</source>
        <translation>ГФЛОПС</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GB/s</source>
        <translation>ГБ/с</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>W</source>
        <translation>Вт</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MHz</source>
        <translation>МГц</translation>
    </message>
    <message>
        <location line="+19"/>
        <location line="+6"/>
        <location line="+7"/>
        <location line="+9"/>
        <location line="+8"/>
        <location line="+19"/>
        <location line="+7"/>
        <location line="+15"/>
        <location line="+7"/>
        <location line="+9"/>
        <location line="+15"/>
        <location line="+6"/>
        <location line="+17"/>
        <location line="+24"/>
        <source>n/a</source>
        <translation>н/д</translation>
    </message>
    <message>
        <location line="-125"/>
        <source>{0}%</source>
        <translation>{0}&#xa0;%</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>TiB</source>
        <translation>ТиБ</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GiB</source>
        <translation>ГиБ</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MiB</source>
        <translation>МиБ</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>KiB</source>
        <translation>КиБ</translation>
    </message>
    <message>
        <location line="+189"/>
        <source>{0}% .. +{1}%, {2}</source>
        <translation>{0} % .. +{1} %, {2}</translation>
    </message>
</context>
<context>
    <name>workers</name>
    <message>
        <location filename="../../desktop/workers.py" line="+134"/>
        <location line="+486"/>
        <source>Cancelled</source>
        <translation>Отменено</translation>
    </message>
    <message>
        <location line="-195"/>
        <source>a line of {0} bytes (over the limit; not read)</source>
        <translation>строка длиной {0} байт (сверх предела; не прочитана)</translation>
    </message>
    <message>
        <location line="+54"/>
        <source>The probe sent a line the app could not use, and it was ignored: {0}</source>
        <translation>Проба прислала строку, которую приложение не может использовать; она пропущена: {0}</translation>
    </message>
    <message>
        <location line="+54"/>
        <source>The probe output could not be read: {0}</source>
        <translation>Не удалось прочитать вывод пробы: {0}</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>The probe could not be started: {0}</source>
        <translation>Не удалось запустить замер: {0}</translation>
    </message>
    <message>
        <location line="+56"/>
        <source>The probe process (pid {0}) did not exit when it was killed; it may be stuck in the GPU driver. The run was ended without it.</source>
        <translation>Процесс пробы (pid {0}) не завершился после принудительной остановки; возможно, он завис в драйвере GPU. Запуск завершён без него.</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>The probe took longer than {0} s and was stopped.</source>
        <translation>Замер длился дольше {0} с и был остановлен.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>starting</source>
        <translation>запуск</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The probe made no progress for {0} s (at: {1}) and was stopped.</source>
        <translation>Проба не продвигалась {0} с (на этапе: {1}) и была остановлена.</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>The probe reported an error: {0}</source>
        <translation>Замер сообщил об ошибке: {0}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The probe exited with code {0}{1}</source>
        <translation>Замер завершился с кодом {0}{1}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The probe finished without a report{0}</source>
        <translation>Замер завершился без отчёта{0}</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>crashed</source>
        <translation>аварийно завершилась</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>exited with code {0}</source>
        <translation>завершилась с кодом {0}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The probe sent its finished report, then {0}{1} The report was kept; a CUDA error during the run is the usual cause.</source>
        <translation>Проба прислала готовый отчёт, затем {0}{1} Отчёт сохранён; обычная причина — ошибка CUDA во время запуска.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The probe reported an error after its report: {0}</source>
        <translation>После отчёта проба сообщила об ошибке: {0}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>{0} lines from the probe were ignored; the first: {1}</source>
        <translation>Пропущено строк пробы: {0}; первая: {1}</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>the report file: {0}</source>
        <translation>файл отчёта: {0}</translation>
    </message>
</context>
</TS>
