"""The broad crawl of scripts/bench/broad.ts in Scrapy: the same spider as broad_spider.ts, with the settings the
"Broad Crawls" page of Scrapy's documentation recommends (plus the benchmark's concurrency and robots.txt obeyed).

    scrapy runspider scripts/bench/broad_scrapy.py -a seeds=SEEDS_FILE -s CONCURRENT_REQUESTS=1000 \
        -s CONCURRENT_REQUESTS_PER_DOMAIN=2 -o items.jsonl
"""
import scrapy


class Broad(scrapy.Spider):
    name = "broad"
    custom_settings = {
        # "Broad Crawls": the recommended settings.
        "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.DownloaderAwarePriorityQueue",
        "REACTOR_THREADPOOL_MAXSIZE": 20,
        "LOG_LEVEL": "INFO",
        "COOKIES_ENABLED": False,
        "RETRY_ENABLED": False,
        "DOWNLOAD_TIMEOUT": 15,
        "REDIRECT_ENABLED": False,
        "AJAXCRAWL_ENABLED": True,
        # Breadth-first order, as the page suggests for broad crawls.
        "DEPTH_PRIORITY": 1,
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        "ROBOTSTXT_OBEY": True,
        "TELNETCONSOLE_ENABLED": False,
    }

    def start_requests(self):
        with open(self.seeds) as seeds:
            for url in seeds:
                if url.strip():
                    yield scrapy.Request(url.strip())

    def parse(self, response):
        yield {
            "title": response.css("title::text").get(),
            "url": response.url,
            "latency": response.meta.get("download_latency"),
        }
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)
